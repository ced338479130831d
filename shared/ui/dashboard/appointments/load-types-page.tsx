import { useEffect, useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { ConfirmDialog } from '../billing/confirm-dialog';
import { problemText } from '../records/http';
import { deleteLoadType, type LoadType, type Location, loadDoors, loadLoadTypes } from './data';
import { LoadTypeForm } from './load-type-form';
import { DIRECTION_WORDS, doorsText } from './load-type-words';

const minutes = new Intl.NumberFormat(undefined, { style: 'unit', unit: 'minute', unitDisplay: 'short' });

/**
 * The yard's load types (docs/domain.md "Appointments"): what a booking is for, how long it takes
 * the door, which doors it may use and whether carriers see it. Admins and dispatchers create, edit
 * and delete them; the others read the list.
 */
export function LoadTypesPage(props: { yardId: string; yardName: string; readOnly: string | null }) {
  const [types, setTypes] = useState<LoadType[] | null>(null);
  const [doors, setDoors] = useState<Location[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [editing, setEditing] = useState<LoadType | 'new' | null>(null);
  const [deleting, setDeleting] = useState<LoadType | null>(null);
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    Promise.all([loadLoadTypes(props.yardId), loadDoors(props.yardId)]).then(
      ([t, d]) => {
        if (!live) return;
        setTypes(t);
        setDoors(d);
        setProblem(null);
      },
      (err: unknown) => live && setProblem(problemText(err, 'load type')),
    );
    return () => {
      live = false;
    };
  }, [props.yardId, generation]);

  const removal = useSubmit(async (lt: LoadType) => {
    await deleteLoadType(lt);
    setDeleting(null);
    setNotice({ kind: 'ok', text: `Load type ${lt.name} is deleted.` });
    setGeneration((g) => g + 1);
  });

  if (problem) return <FormMessage kind="error">The load types could not be read: {problem}</FormMessage>;
  if (!types) return <p class="muted">Loading the load types…</p>;
  const mayEdit = !props.readOnly;

  return (
    <section aria-labelledby="load-types-heading">
      <div class="panel-head">
        <h2 id="load-types-heading">Load types</h2>
        {mayEdit && editing === null && (
          <button
            type="button"
            class="primary"
            onClick={() => {
              setNotice(null);
              setEditing('new');
            }}
          >
            New load type
          </button>
        )}
      </div>
      {props.readOnly && <p class="read-only-note">{props.readOnly}</p>}
      {notice && <FormMessage kind={notice.kind}>{notice.text}</FormMessage>}
      {editing !== null && (
        <LoadTypeForm
          key={editing === 'new' ? 'new' : editing.id}
          yardId={props.yardId}
          loadType={editing === 'new' ? null : editing}
          doors={doors}
          onCancel={() => setEditing(null)}
          onSaved={(lt) => {
            setEditing(null);
            setNotice({ kind: 'ok', text: `Load type ${lt.name} is saved.` });
            setGeneration((g) => g + 1);
          }}
        />
      )}
      {types.length === 0 ? (
        <p>
          {props.yardName} has no load types yet: nothing can be booked until it has one.
          {mayEdit ? ' Add one with “New load type”.' : ''}
        </p>
      ) : (
        <table class="load-types">
          <caption class="visually-hidden">Load types of {props.yardName}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Direction</th>
              <th scope="col">Door time</th>
              <th scope="col">Allowed doors</th>
              <th scope="col">Carriers book it</th>
              {mayEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {types.map((lt) => (
              <tr key={lt.id}>
                <th scope="row">{lt.name}</th>
                <td>{DIRECTION_WORDS[lt.direction]}</td>
                <td>{minutes.format(lt.durationMinutes)}</td>
                <td>{doorsText(lt.doorIds, doors)}</td>
                <td>{lt.carrierVisible ? 'Yes' : 'No, office only'}</td>
                {mayEdit && (
                  <td class="row-actions">
                    <button
                      type="button"
                      aria-label={`Edit load type ${lt.name}`}
                      onClick={() => {
                        setNotice(null);
                        setEditing(lt);
                      }}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`Delete load type ${lt.name}`}
                      onClick={() => {
                        removal.clear();
                        setDeleting(lt);
                      }}
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete load type ${deleting.name}?`}
          confirm="Delete load type"
          danger
          busy={removal.busy}
          problem={removal.problem || removal.failed ? problemText(removal.problem, 'load type') : null}
          onConfirm={() => removal.run(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>Carriers and the office can no longer book it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
