import { describe, expect, it } from 'vitest';
import { findDeadlock, type AgentWait } from '../../../../src/graph/dynamic/deadlock.ts';

const waits = (entries: [string, AgentWait][]) => new Map(entries);

describe('findDeadlock', () => {
  it('is none while one running agent still works, or a step is queued', () => {
    const w = waits([['m', { kind: 'children', on: ['m-1'] }]]);
    expect(findDeadlock({ running: ['m', 'm-1'], waits: w, queued: 0 })).toBeUndefined();
    expect(findDeadlock({ running: ['m'], waits: w, queued: 1 })).toBeUndefined();
  });

  it('names the cycle when every running agent waits', () => {
    const w = waits([
      ['m', { kind: 'children', on: ['m-1', 'm-2'] }],
      ['m-1', { kind: 'message', from: 'm-2' }],
      ['m-2', { kind: 'message', from: 'm-1' }],
    ]);
    const found = findDeadlock({ running: ['m', 'm-1', 'm-2'], waits: w, queued: 0 });
    expect(found).toBe(
      'deadlock: m-1 waits for a message from m-2; m-2 waits for a message from m-1 (a cycle: m-1 → m-2 → m-1). No agent can go on, so the run ends.',
    );
  });

  it('says when an agent waits for a message from one that has stopped', () => {
    const w = waits([['m-1', { kind: 'message', from: 'm-2' }]]);
    expect(findDeadlock({ running: ['m-1'], waits: w, queued: 0 })).toBe(
      'deadlock: m-1 waits for a message from m-2, which is no longer running. No agent can go on, so the run ends.',
    );
  });
});
