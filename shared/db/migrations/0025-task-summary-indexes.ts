/**
 * The task summary's wait and duration (shared/modules/tasks/summary-repo.ts) read from the index
 * alone: each sample is the difference of two times of one task, and these indexes hold both beside
 * the yard and the time that bounds the window, so the last 24 h of a yard is one index range and no
 * table row is read. They replace the two-column indexes of the same names (migration 0002), whose
 * every reader they still serve (same leading columns): a write keeps as many indexes as before.
 */
export const up = `
DROP INDEX yard_task_started;
CREATE INDEX yard_task_started ON yard_task (yard_id, started_at, created_at);
DROP INDEX yard_task_completed;
CREATE INDEX yard_task_completed ON yard_task (yard_id, completed_at, started_at);
`;
