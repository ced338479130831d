import { useEffect, useState } from 'preact/hooks';
import { session } from '../../common/auth';

/**
 * A stored gate picture. Attachments need the bearer token, which an <img src> cannot send, so the
 * bytes are fetched and shown from an object URL (released when the picture goes away).
 */
export function GatePicture(props: { attachmentId: string; alt: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let objectUrl: string | null = null;
    let alive = true;
    fetch(`/api/attachment/${props.attachmentId}`, {
      headers: { Authorization: `Bearer ${session.token() ?? ''}` },
    })
      .then((res) => (res.ok ? res.blob() : Promise.reject(new Error(String(res.status)))))
      .then((blob) => {
        if (!alive) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => alive && setFailed(true));
    return () => {
      alive = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [props.attachmentId]);
  if (failed) return <p class="muted">The picture could not be loaded; it is kept with the movement.</p>;
  if (!url) return <p class="muted">Loading the picture…</p>;
  return <img src={url} alt={props.alt} class="gate-picture" />;
}
