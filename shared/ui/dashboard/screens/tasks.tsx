import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { may } from '../access';
import { timeZone, yard } from '../scope';
import { NewTaskForm } from '../tasks/new-task-form';
import { useTaskData } from '../tasks/task-data';
import { TaskList } from '../tasks/task-list';
import { TYPE_WORDS } from '../tasks/task-words';
import '../tasks/tasks.css';

const LIST = '/dashboard/tasks';
const NEW = '/dashboard/tasks/new';

/**
 * Yard tasks of the chosen yard: /dashboard/tasks lists them (live), /dashboard/tasks/new creates
 * one. Dispatchers and admins get the changes; the others read.
 */
export function Tasks() {
  const { path, route } = useLocation();
  const y = yard.value;
  const data = useTaskData(y?.id);
  const [notice, setNotice] = useState<{ text: string; at: number } | null>(null);
  const role = session.principal.value?.role;
  const mayEdit = may.editTasks(role);
  if (!y) return <p>No yard is in your scope. Ask an admin to give you access to a yard.</p>;

  if (path.replace(/\/$/, '') === NEW) {
    if (!mayEdit) {
      return (
        <FormMessage kind="warn">
          Your role ({role}) may not create tasks: dispatchers and admins may.{' '}
          <a href={LIST}>Back to the task list</a>.
        </FormMessage>
      );
    }
    return (
      <NewTaskForm
        yardId={y.id}
        yardName={y.name}
        locations={data.locations}
        drivers={data.drivers}
        onCreated={(task, trailer) => {
          if (task.trailerId && trailer) data.rememberTrailer(task.trailerId, trailer);
          setNotice({
            text: `${TYPE_WORDS[task.type]} task created${trailer ? ` for trailer ${trailer}` : ''}.`,
            at: Date.now(),
          });
          void data.reload();
          route(LIST);
        }}
        onCancel={() => route(LIST)}
      />
    );
  }

  return (
    <section class="tasks-screen" aria-labelledby="tasks-heading">
      <div class="tasks-head">
        <h1 id="tasks-heading">Yard tasks of {y.name}</h1>
        {mayEdit ? (
          <a class="button primary" href={NEW}>
            New task
          </a>
        ) : (
          <p class="muted">Read only: dispatchers and admins create and change tasks.</p>
        )}
      </div>
      {data.problem && <FormMessage kind="error">{data.problem}</FormMessage>}
      <TaskList
        key={notice?.at ?? 0}
        data={data}
        yardId={y.id}
        timeZone={timeZone.value}
        mayEdit={mayEdit}
        notice={notice?.text ?? null}
      />
    </section>
  );
}
