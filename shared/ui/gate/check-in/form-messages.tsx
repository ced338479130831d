import { FormMessage } from '../../common/components/field';
import { NewUnitConfirm, type NewUnitQuestion } from './new-unit';

/**
 * The messages at the top of the check-in form: what the clerk's role may not do, why the last
 * attempt failed, a stay the clerk may close by recording anyway (the server's warning is kept on
 * the movement), and the question about a new trailer.
 */
export function CheckInMessages(props: {
  role: string | undefined;
  mayWork: boolean;
  problem: string[];
  conflict: string | null;
  newUnit: NewUnitQuestion | null;
  typedTrailer: string;
  busy: boolean;
  onRecordAnyway: () => void;
  onUseCorrected: (trailerText: string) => void;
  onConfirmNew: () => void;
}) {
  return (
    <>
      {!props.mayWork && (
        <FormMessage kind="warn">
          Your role ({props.role}) may look but not record check-ins. A gate clerk or an admin checks trucks
          in.
        </FormMessage>
      )}
      {props.problem.length > 0 && (
        <FormMessage kind="error">
          {props.problem.map((p) => (
            <div key={p}>{p}</div>
          ))}
        </FormMessage>
      )}
      {props.conflict && (
        <div class="message warn" role="alert">
          <p>{props.conflict}</p>
          <button type="button" class="danger" onClick={props.onRecordAnyway} disabled={props.busy}>
            Record anyway
          </button>{' '}
          <span>The earlier stay is closed and the warning is kept on the movement.</span>
        </div>
      )}
      {props.newUnit && (
        <NewUnitConfirm
          typed={props.typedTrailer}
          question={props.newUnit}
          busy={props.busy}
          onUseCorrected={props.onUseCorrected}
          onConfirm={props.onConfirmNew}
        />
      )}
    </>
  );
}
