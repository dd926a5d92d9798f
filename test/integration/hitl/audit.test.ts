/** Approvals are audited in the knowledge graph itself (Kuzu in memory), not just in a callback. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';

let store: KnowledgeStore;
let broker: ApprovalBroker;

beforeAll(async () => {
  store = await openKuzuStore({ path: ':memory:' });
  broker = new ApprovalBroker({
    timeoutMs: 60_000,
    defaultDecision: 'deny',
    recordApproval: (r) => store.recordApproval(r),
  });
});
afterAll(async () => {
  await broker.close();
  await store.close();
});

const ask = (runId: string, timeoutMs?: number) =>
  broker.request(
    {
      kind: 'tool',
      runId,
      toolCalls: [
        { toolCallId: 'c1', tool: 'fs/write_file', args: { path: 'a' }, reason: 'annotations: destructiveHint' },
      ],
    },
    { timeoutMs },
  );

describe('approval audit in the knowledge store', () => {
  it('a timeout is recorded with the default decision, who and when', async () => {
    const { request, outcome } = ask('audit-1', 30);
    await outcome;
    const [record] = await store.listApprovals('audit-1');
    expect(record).toMatchObject({
      id: request.id,
      kind: 'tool',
      resolvedBy: 'timeout',
      actor: 'system',
      decision: { kind: 'tool', decisions: { c1: { type: 'deny' } } },
      request: { toolCalls: [{ tool: 'fs/write_file', args: { path: 'a' } }] },
    });
    expect(record!.resolvedAt).toBeDefined();
  });

  it('a human decision is recorded once per request (the request row is updated, not duplicated)', async () => {
    const { request, outcome } = ask('audit-2');
    broker.resolve(request.id, { kind: 'tool', decisions: { c1: { type: 'accept' } } }, 'key-abc');
    await outcome;
    const records = await store.listApprovals('audit-2');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      resolvedBy: 'human',
      actor: 'key-abc',
      decision: { decisions: { c1: { type: 'accept' } } },
    });
  });
});
