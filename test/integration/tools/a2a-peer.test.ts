import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aPeerHost } from '../../../src/tools/a2a-peer.ts';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { startPeerFixture, type PeerFixture } from '../../fixtures/tools/a2a-peer-server.ts';

let streamingPeer: PeerFixture;
let plainPeer: PeerFixture;
const broker = new ApprovalBroker({ timeoutMs: 30_000, defaultDecision: 'deny' });
const host = new A2aPeerHost({ approvals: broker });

beforeAll(async () => {
  streamingPeer = await startPeerFixture({ streaming: true });
  plainPeer = await startPeerFixture({ streaming: false });
});
afterAll(async () => {
  await broker.close();
  await streamingPeer.close();
  await plainPeer.close();
});

const ctx = (runId: string, extra: { signal?: AbortSignal; onProgress?: (t: string) => void } = {}) => ({
  runId,
  stepId: 'step-a2a',
  signal: extra.signal ?? new AbortController().signal,
  onProgress: extra.onProgress,
});

describe('A2aPeerHost', () => {
  it('streams from a streaming peer: progress text, then the artifact as output', async () => {
    const progress: string[] = [];
    const out = await host.run(
      streamingPeer.url,
      'echo hello peer',
      ctx('run-a', { onProgress: (t) => progress.push(t) }),
    );
    expect(out).toMatchObject({ ok: true, output: 'echo: hello peer' });
    expect(progress).toContain('working on: echo hello peer');
    expect(out.sources.some((s) => s.startsWith(`a2a:${streamingPeer.url}#task=`))).toBe(true);
  });

  it('works with a peer that does not stream (blocking SendMessage)', async () => {
    const out = await host.run(plainPeer.url, 'echo plain', ctx('run-b'));
    expect(out).toMatchObject({ ok: true, output: 'echo: plain' });
  });

  it('a failed peer task is reported with its reason', async () => {
    const out = await host.run(streamingPeer.url, 'explode now', ctx('run-c'));
    expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/ended failed: cannot do: explode now/) });
  });

  it('input-required becomes an elicitation; the answer goes back on the same task', async () => {
    const running = host.run(streamingPeer.url, 'ask me something', ctx('run-d'));
    await expect.poll(() => broker.listPending('run-d').length).toBe(1);
    const [request] = broker.listPending('run-d');
    expect(request).toMatchObject({
      kind: 'elicitation',
      source: `a2a:${streamingPeer.url}`,
      message: 'Which year?',
      stepId: 'step-a2a',
    });
    expect(
      (
        await broker.resolve(
          request!.id,
          { kind: 'elicitation', action: 'accept', content: { answer: '1969' } },
          'tester',
        )
      ).ok,
    ).toBe(true);
    const out = await running;
    expect(out).toMatchObject({ ok: true, output: 'answer was 1969' });
    expect(streamingPeer.received.slice(-2)).toEqual(['ask me something', '1969']);
  });

  it('declining the question cancels the peer task', async () => {
    const running = host.run(plainPeer.url, 'ask again', ctx('run-e'));
    await expect.poll(() => broker.listPending('run-e').length).toBe(1);
    await broker.resolve(broker.listPending('run-e')[0]!.id, { kind: 'elicitation', action: 'decline' }, 'tester');
    const out = await running;
    expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/no answer was given/) });
    expect(plainPeer.cancelled).toHaveLength(1);
  });

  it('abort cancels the remote task (CancelTask)', async () => {
    const controller = new AbortController();
    const running = host.run(streamingPeer.url, 'slow job', ctx('run-f', { signal: controller.signal }));
    await expect.poll(() => streamingPeer.received.includes('slow job')).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect(await running).toMatchObject({ ok: false, error: 'cancelled' });
    await expect.poll(() => streamingPeer.cancelled.length).toBe(1);
  });

  it('an unreachable peer is a clear error, not a throw', async () => {
    const out = await host.run('http://127.0.0.1:9', 'echo x', ctx('run-g'));
    expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/cannot reach A2A peer/) });
  });
});
