import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from './api/problem';
import { attachmentBlob } from './reads';

type State = { kind: 'loading' } | { kind: 'ready'; url: string } | { kind: 'failed'; message: string };

/**
 * A picture stored as an attachment (a gate camera's snapshot, a damage photo). `<img src>` cannot
 * send the bearer token, so the bytes are fetched through the API client (token, 401 -> login
 * dialog) and shown from an object URL (the CSP allows img-src blob:), released on unmount.
 */
export function AttachmentImage(props: { id: string; alt: string; class?: string; width?: number }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    let url: string | undefined;
    let alive = true;
    setState({ kind: 'loading' });
    attachmentBlob(props.id).then(
      (blob) => {
        if (!alive) return;
        url = URL.createObjectURL(blob);
        setState({ kind: 'ready', url });
      },
      (err: unknown) => {
        if (alive) setState({ kind: 'failed', message: pictureProblem(err) });
      },
    );
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.id]);

  const cls = `attachment-image ${props.class ?? ''}`.trim();
  if (state.kind === 'ready') {
    return <img class={cls} src={state.url} alt={props.alt} width={props.width} decoding="async" />;
  }
  return (
    <span class={`${cls} ${state.kind}`} role={state.kind === 'failed' ? 'alert' : 'status'}>
      {state.kind === 'loading' ? `Loading picture: ${props.alt}…` : state.message}
    </span>
  );
}

function pictureProblem(err: unknown): string {
  if (!(err instanceof ProblemError))
    return 'The picture could not be shown. Reload the screen to try again.';
  if (err.code === 'network-error')
    return 'The picture could not be loaded: no connection. It is kept on the server.';
  if (err.status === 404) return 'The picture is no longer stored (removed or past its retention).';
  if (err.status === 503 || err.status === 502 || err.status === 504)
    return 'The picture is not here yet (it is still on its way from the site). Try again in a minute.';
  return `The picture could not be loaded: ${err.message}`;
}
