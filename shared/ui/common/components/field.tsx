import type { ComponentChildren } from 'preact';

/**
 * A labelled form field with its error underneath (a server field error lands here by name:
 * `errors[].path` body.trailer.number -> field "trailer.number"). The input is the child.
 */
export function Field(props: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && !props.error && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <small id={`${props.id}-error`} class="error" role="alert">
          {props.error}
        </small>
      )}
    </div>
  );
}

/** The aria attributes that tie an input to its Field's error or hint. */
export function describedBy(id: string, error: string | undefined, hint?: boolean) {
  return {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : hint ? `${id}-hint` : undefined,
  };
}

/** A whole-form message: the problem's detail, what to do. */
export function FormMessage(props: { kind: 'error' | 'ok' | 'warn'; children: ComponentChildren }) {
  return (
    <div class={`message ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}
