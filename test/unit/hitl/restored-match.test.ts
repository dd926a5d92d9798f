/** Whether a resumed run's request asks what a restored one asked (src/hitl/restored-match.ts). */
import { describe, expect, it } from 'vitest';
import { asksTheSame } from '../../../src/hitl/restored-match.ts';
import type { ApprovalRequest, ApprovalRequestInput } from '../../../src/hitl/types.ts';

const input = (args: Record<string, unknown>, stepId = 's1'): ApprovalRequestInput => ({
  kind: 'tool',
  runId: 'r1',
  stepId,
  toolCalls: [{ toolCallId: 'new-id', tool: 'fs/write_file', args, reason: 'destructiveHint' }],
});
const restored = (args: Record<string, unknown>): ApprovalRequest =>
  ({
    ...input(args),
    id: 'req-1',
    createdAt: '2026-11-24T00:00:00.000Z',
    expiresAt: '2026-11-25T00:00:00.000Z',
  }) as ApprovalRequest;

describe('asksTheSame', () => {
  it('recognises the same call whose arguments came back from the store with their keys reordered', () => {
    // Postgres JSONB hands objects back with keys in its own order.
    const asked = { path: '/w/a.txt', content: 'x', options: { mode: 'w', encoding: 'utf8' } };
    const fromStore = { content: 'x', options: { encoding: 'utf8', mode: 'w' }, path: '/w/a.txt' };
    expect(asksTheSame(restored(fromStore), input(asked))).toBe(true);
  });

  it('does not match other arguments or another step', () => {
    expect(asksTheSame(restored({ path: 'a' }), input({ path: 'b' }))).toBe(false);
    expect(asksTheSame(restored({ path: 'a' }), input({ path: 'a' }, 's2'))).toBe(false);
  });
});
