import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { Dialog } from '../../common/components/dialog';
import { ActuationLine } from '../lanes/actuations';
import { BlobImage } from '../lanes/camera-image';
import { attachmentBlob } from '../lanes/data';
import { actuationOf } from './data';

type Movement = Schemas['Movement'];
type Actuation = Schemas['GateActuation'];

/** A movement's pictures (thumbnails; a click shows one full size) and what the gate did. */
export function MovementDetails(props: { m: Movement; timeZone: string; trailer: string }) {
  const { m } = props;
  const [actuation, setActuation] = useState<Actuation | null | 'loading' | 'error'>(
    m.actuationId ? 'loading' : null,
  );
  const [big, setBig] = useState<string | null>(null);
  useEffect(() => {
    if (!m.actuationId) return;
    actuationOf(m).then(setActuation, () => setActuation('error'));
  }, [m.id]);
  const what = `${m.direction === 'in' ? 'check-in' : 'check-out'}${props.trailer ? ` of ${props.trailer}` : ''}`;
  return (
    <div class="movement-details">
      <div class="thumbs">
        {m.attachmentIds.length === 0 && <p class="muted">No pictures were taken at this movement.</p>}
        {m.attachmentIds.map((id, i) => (
          <button
            key={id}
            type="button"
            class="thumb"
            onClick={() => setBig(id)}
            aria-label={`Picture ${i + 1} of the ${what}, full size`}
          >
            <BlobImage
              load={() => attachmentBlob(id)}
              alt={`Picture ${i + 1} of the ${what}`}
              class="thumb-img"
            />
          </button>
        ))}
      </div>
      <div>
        <strong>Gate: </strong>
        {actuation === null && (m.actuationId ? 'no record found' : 'not opened by this movement')}
        {actuation === 'loading' && 'loading…'}
        {actuation === 'error' && 'the opening record could not be loaded'}
        {actuation && typeof actuation === 'object' && (
          <ActuationLine a={actuation} timeZone={props.timeZone} />
        )}
        {m.plateRead && <div>Plate read by the camera: {m.plateRead}</div>}
        {m.notes && <div>Notes: {m.notes}</div>}
      </div>
      {big && <PictureViewer id={big} alt={`Picture of the ${what}`} onClose={() => setBig(null)} />}
    </div>
  );
}

function PictureViewer(props: { id: string; alt: string; onClose: () => void }) {
  return (
    <Dialog id="picture-viewer" class="picture-viewer" label={props.alt} onClose={props.onClose}>
      <BlobImage load={() => attachmentBlob(props.id)} alt={props.alt} class="full-img" />
      <button type="button" class="primary" onClick={props.onClose}>
        Close <kbd>Esc</kbd>
      </button>
    </Dialog>
  );
}
