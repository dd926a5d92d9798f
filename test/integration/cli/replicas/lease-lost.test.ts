/**
 * A replica that really loses a run (docs/deployment.md, "Replicas"): replica A is cut off from Redis
 * alone (a TCP proxy between them, test/support/tcp-proxy.ts) long enough for B to take its run over;
 * when A is back, its renewal finds the lease B's and stops the run there — and the client streaming
 * from A reads on, from the shared store, to the run's end on B: every event once, under its seq.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest } from '../../../../src/hitl/types.ts';
import type { GraphEvent } from '../../../../src/graph/events.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';
import { follow, replicasMissing, startRun, useReplicas } from '../../../support/replicas.ts';
import { tcpProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';

const missing = replicasMissing();
if (missing) console.log(`lease-lost.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 120_000 });

const { replica, workspace, writeQuery, redisPort } = useReplicas('parley-lease-lost');

const acceptAll = (request: ApprovalRequest) =>
  request.kind === 'tool' ? Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, 'accept'])) : {};
const askedIn = (events: GraphEvent[]) =>
  events.find((e): e is GraphEvent & { type: 'approval.requested' } => e.type === 'approval.requested')!.request;
const seqs = (events: GraphEvent[]) => events.map((e) => e.seq);

let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

describe.skipIf(missing !== undefined)('a run whose lease its replica lost', () => {
  it('goes on on the other replica, and the client streaming from the first reads on to its end', async () => {
    proxy = await tcpProxy(redisPort());
    const [a, b] = await Promise.all([replica({ PARLEY_REDIS_URL: `redis://127.0.0.1:${proxy.port}` }), replica()]);
    const run = await startRun(
      a.url,
      { query: writeQuery('moved.txt', 'written on B'), mode: 'orchestrate' },
      'approval.requested',
    );
    const asked = askedIn(run.events);

    // A alone loses Redis: its lease expires, B sees it missing for a whole lease and takes the run over.
    proxy.cut();
    const cutAt = Date.now();
    await vi.waitFor(() => expect(b.log()).toContain('taking over a run'), { timeout: 30_000, interval: 100 });
    console.log(`lease-lost.test.ts: B took the run over ${Date.now() - cutAt} ms after A was cut off (lease 2000 ms)`);
    // A is back: its next renewal finds the lease B's, and A stops the run as it is.
    proxy.mend();
    await vi.waitFor(() => expect(a.log()).toContain('lost the lease of a run'), { timeout: 30_000, interval: 100 });
    // The approval waits on B under the same id; answered there, the run ends there.
    await vi.waitFor(async () => {
      const listed = (await (await fetch(`${b.url}/api/approvals`)).json()) as { approvals: ApprovalRequest[] };
      expect(listed.approvals.map((r) => r.id)).toEqual([asked.id]);
    });
    const answer = await postJson(`${b.url}/api/approve`, { request_id: asked.id, decisions: acceptAll(asked) });
    expect(answer.status, await answer.clone().text()).toBe(200);

    // The stream from A was never cut: it read on to run.finished, every event once and in order.
    await run.done;
    expect(run.state.error).toBeUndefined();
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(seqs(run.events)).toEqual(run.events.map((_, n) => n + 1));
    expect(readFileSync(join(workspace, 'moved.txt'), 'utf8')).toBe('written on B');
    // A client reconnecting to A reads the same run, ended (served from the store, not A's stopped copy).
    const again = follow(await fetch(`${a.url}/api/runs/${run.runId}/events`));
    await again.done;
    expect(again.events.map((e) => [e.seq, e.type])).toEqual(run.events.map((e) => [e.seq, e.type]));
    expect(a.log() + b.log()).not.toMatch(/unhandled error/);
  });
});
