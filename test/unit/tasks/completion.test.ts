import { describe, expect, it } from 'vitest';
import type { TaskType } from '../../../shared/enums.js';
import {
  billedCarrierOf,
  relocatesTrailer,
  spotOnCompletion,
} from '../../../shared/modules/tasks/completion.js';

/** docs/domain.md "Working a task": what completing a task does to its trailer. */
const task = (over: Partial<Parameters<typeof spotOnCompletion>[0]> = {}) => ({
  type: 'move' as TaskType,
  yardId: 'Y1',
  trailerId: 'T1',
  toLocationId: 'SPOT-2',
  ...over,
});

describe('completing a task', () => {
  it('relocates the trailer for move, pull_to_door, return_to_spot and shunt only', () => {
    for (const type of ['move', 'pull_to_door', 'return_to_spot', 'shunt'] as const) {
      expect(relocatesTrailer(task({ type })), type).toBe(true);
    }
    for (const type of ['inspect', 'other'] as const)
      expect(relocatesTrailer(task({ type })), type).toBe(false);
    expect(relocatesTrailer(task({ trailerId: null }))).toBe(false);
  });

  it('puts a trailer still in the task’s yard on the destination', () => {
    expect(spotOnCompletion(task(), { yardId: 'Y1' })).toBe('SPOT-2');
  });

  it('places a trailer that left the yard before completion on no spot', () => {
    expect(spotOnCompletion(task(), { yardId: null })).toBeNull();
    expect(spotOnCompletion(task(), { yardId: 'Y2' })).toBeNull();
  });

  it('leaves the trailer where it is when the task has no destination', () => {
    expect(spotOnCompletion(task({ toLocationId: null }), { yardId: 'Y1' })).toBeNull();
  });

  it('bills the carrier of the open visit, not the one on the trailer’s record', () => {
    expect(billedCarrierOf({ carrierId: 'OWNER' }, { carrierId: 'POOL' })).toBe('POOL');
    expect(billedCarrierOf({ carrierId: null }, { carrierId: 'POOL' })).toBe('POOL');
    // A visit checked in without a carrier bills nobody, whatever the record says.
    expect(billedCarrierOf({ carrierId: 'OWNER' }, { carrierId: null })).toBeNull();
  });

  it('bills the trailer’s own carrier only when it has no open visit', () => {
    expect(billedCarrierOf({ carrierId: 'OWNER' }, undefined)).toBe('OWNER');
    expect(billedCarrierOf({ carrierId: null }, undefined)).toBeNull();
  });
});
