/**
 * A run's approvals through its handle (graph/run/approvals.ts, RunHandle.pendingApprovals/resolve):
 * the run's own requests only, answered through the one broker, so the first answer wins and another
 * run's request answers like an unknown id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runApprovals } from '../../../src/graph/run/approvals.ts';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import type { ApprovalRequestInput } from '../../../src/hitl/types.ts';

const ask = (runId: string, callerId: string): ApprovalRequestInput => ({
  kind: 'tool',
  runId,
  callerId,
  toolCalls: [{ toolCallId: 'c1', tool: 'fs/write_file', args: { path: 'a.txt' }, reason: 'destructiveHint' }],
});
const accept = { kind: 'tool' as const, decisions: { c1: { type: 'accept' as const } } };

let broker: ApprovalBroker;
afterEach(() => broker?.close());

describe('RunHandle approvals', () => {
  it("lists and answers the run's own requests; another run's id answers not_found and changes nothing", async () => {
    broker = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny' });
    const mine = broker.request(ask('run-a', 'alice'));
    const other = broker.request(ask('run-b', 'alice'));
    const run = runApprovals(broker, 'run-a', 'alice');

    expect(run.pendingApprovals().map((r) => r.id)).toEqual([mine.request.id]);
    expect(await run.resolve(other.request.id, accept, 'test')).toMatchObject({ ok: false, code: 'not_found' });
    expect(broker.get(other.request.id)).toBeDefined();

    expect(await run.resolve(mine.request.id, accept, 'test')).toMatchObject({ ok: true });
    expect((await mine.outcome).resolvedBy).toBe('human');
    expect(run.pendingApprovals()).toEqual([]);
    // A second answer on any channel reads already_resolved, as through POST /api/approve.
    expect(await run.resolve(mine.request.id, accept, 'test')).toMatchObject({ ok: false, code: 'already_resolved' });
  });

  it("scopes to the run's owner: another caller's settled request reads not_found", async () => {
    broker = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny' });
    const theirs = broker.request(ask('run-b', 'bob'));
    await broker.resolve(theirs.request.id, accept, 'bob');
    const run = runApprovals(broker, 'run-a', 'alice');
    expect(await run.resolve(theirs.request.id, accept, 'test')).toMatchObject({ ok: false, code: 'not_found' });
  });
});
