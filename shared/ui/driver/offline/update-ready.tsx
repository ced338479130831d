import { applyUpdate, updateReady } from './register';

/** "A new version is ready": the driver chooses when to reload (never under their thumb mid-task). */
export function UpdateReady() {
  if (!updateReady.value) return null;
  return (
    <div class="outbox-update" role="status">
      <p>A new version of the app is ready.</p>
      <button type="button" class="primary" onClick={applyUpdate}>
        Reload now
      </button>
    </div>
  );
}
