import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';

type Shown = { kind: 'loading' } | { kind: 'ok'; url: string; at: number } | { kind: 'error'; text: string };

/**
 * An authenticated picture (the bytes come through `load`, data.ts: an <img> cannot send the
 * Authorization header, so they are shown through an object URL; the CSP allows img-src blob:). `load` is called again whenever `reloadKey` changes (a refresh button,
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
