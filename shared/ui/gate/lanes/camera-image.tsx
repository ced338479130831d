import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';

/**
 * Pictures behind the bearer token: an <img> cannot send the Authorization header, so the bytes
 * are fetched with it and shown through an object URL (the CSP allows img-src blob:).
 * (Kept in the lanes folder until the common attachment-image component lands.)
 */
export function cameraSnapshot(cameraId: string): Promise<Blob> {
  return call(
    api.GET('/api/camera/{id}/snapshot', { params: { path: { id: cameraId }, query: {} }, parseAs: 'blob' }),
  ) as Promise<Blob>;
}

export function attachmentBlob(id: string): Promise<Blob> {
  return call(
    api.GET('/api/attachment/{id}', { params: { path: { id } }, parseAs: 'blob' }),
  ) as Promise<Blob>;
}

type Shown = { kind: 'loading' } | { kind: 'ok'; url: string; at: number } | { kind: 'error'; text: string };

/**
 * An authenticated picture. `load` is called again whenever `reloadKey` changes (a refresh button,
 * a new movement at the gate); the previous picture stays until the new one is in.
 */
export function BlobImage(props: {
  load: () => Promise<Blob>;
  reloadKey?: unknown;
  alt: string;
  class?: string;
  loadingText?: string;
  onLoaded?: (at: number) => void;
}) {
  const [shown, setShown] = useState<Shown>({ kind: 'loading' });
  useEffect(() => {
    let alive = true;
    let url: string | undefined;
    props.load().then(
      (blob) => {
        if (!alive) return;
        url = URL.createObjectURL(blob);
        const at = Date.now();
        setShown({ kind: 'ok', url, at });
        props.onLoaded?.(at);
      },
      (err: unknown) => alive && setShown({ kind: 'error', text: pictureProblem(err) }),
    );
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.reloadKey]);
  if (shown.kind === 'ok') return <img src={shown.url} alt={props.alt} class={props.class} />;
  return (
    <div
      class={`picture-placeholder ${props.class ?? ''}`}
      role={shown.kind === 'error' ? 'alert' : 'status'}
    >
      {shown.kind === 'loading' ? (props.loadingText ?? 'Loading the picture…') : shown.text}
    </div>
  );
}

function pictureProblem(err: unknown): string {
  if (!(err instanceof ProblemError)) return 'The picture could not be shown. Try again.';
  if (err.code === 'network-error') return 'No connection to the yard server. Try again when it is back.';
  if (err.status === 404) return 'This picture is no longer stored.';
  if (err.status >= 500)
    return `The camera did not give a picture: ${err.message} Check that it is powered and connected, then refresh.`;
  return err.message;
}
