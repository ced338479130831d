import { describe, expect, it } from 'vitest';
import { conflictMessage, kindLabel, taskName } from '../../../shared/ui/driver/offline/action-text';

const ID = '01936b2f-284c-7aa3-bb5c-d6e7f8091a2b';

describe('the words about queued and refused actions', () => {
  it('names the task by the label the screen gave, else by the end of its id (the start is a time)', () => {
    expect(taskName({ kind: 'complete', taskId: ID, label: 'Move: trailer PRHU 100001' })).toBe(
      'Move: trailer PRHU 100001',
    );
    expect(taskName({ kind: 'complete', taskId: ID })).toBe('Task …091A2B');
    expect(['start', 'complete', 'cancel'].map((k) => kindLabel(k as 'start'))).toEqual([
      'Start',
      'Complete',
      'Cancel',
    ]);
  });

  it('a reassigned task says so plainly, that the action was not applied, and what to do', () => {
    expect(conflictMessage({ kind: 'complete', taskId: ID, label: 'Task T-123' }, 'forbidden', 'x')).toBe(
      'Task T-123 was reassigned to someone else meanwhile: your Complete was not applied. Check your current task.',
    );
  });

  it('a task changed meanwhile quotes the server; an unknown code falls back to its detail', () => {
    expect(
      conflictMessage(
        { kind: 'start', taskId: ID, label: 'Task T-9' },
        'invalid-transition',
        'The task is CANCELLED, which is final: it cannot change any more.',
      ),
    ).toBe(
      'Task T-9 was changed meanwhile (The task is CANCELLED, which is final: it cannot change any more.): your Start was not applied. Check your current task.',
    );
    expect(conflictMessage({ kind: 'cancel', taskId: ID }, 'storage-full', 'The disk is full.')).toBe(
      'Task …091A2B: your Cancel was not applied. The disk is full.',
    );
    expect(conflictMessage({ kind: 'start', taskId: ID }, 'no-active-session', '')).toMatch(
      /shift was not open\. Start your shift, then try again\.$/,
    );
    expect(conflictMessage({ kind: 'start', taskId: ID }, 'not-found', '')).toMatch(/no longer exists/);
  });
});
