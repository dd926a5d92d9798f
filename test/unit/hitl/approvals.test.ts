import { describe, expect, it, vi } from 'vitest';
import { createLocalCluster } from '../../../src/cluster/local.ts';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import type { ApprovalRecord } from '../../../src/knowledge/store.ts';
import type { ApprovalRequestInput } from '../../../src/hitl/types.ts';

const writeSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, content: { type: 'string' } },
  required: ['path', 'content'],
  additionalProperties: false,
};

function toolRequest(runId = 'run-1', ids = ['call-1']): ApprovalRequestInput {
  return {
    kind: 'tool',
    runId,
    stepId: 's1',
    toolCalls: ids.map((toolCallId) => ({
      toolCallId,
      tool: 'fs/write_file',
      args: { path: 'a.txt', content: 'hi' },
      annotations: { destructiveHint: true },
      reason: 'annotations: destructiveHint',
      inputSchema: writeSchema,
    })),
  };
}

function makeBroker(overrides: Partial<ConstructorParameters<typeof ApprovalBroker>[0]> = {}) {
  const records: ApprovalRecord[] = [];
  const broker = new ApprovalBroker({
    timeoutMs: 60_000,
    defaultDecision: 'deny',
    recordApproval: async (r) => {
      records.push(structuredClone(r));
    },
    ...overrides,
  });
  return { broker, records };
}

describe('ApprovalBroker', () => {
  it('issues unguessable ids and returns the request at once, pending until resolved', async () => {
    const { broker, records } = makeBroker();
    const a = broker.request(toolRequest());
    const b = broker.request(toolRequest());
    expect(a.request.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.request.id).not.toBe(b.request.id);
    expect(new Date(a.request.expiresAt).getTime() - new Date(a.request.createdAt).getTime()).toBe(60_000);
    expect(
      broker
        .listPending('run-1')
        .map((r) => r.id)
        .sort(),
    ).toEqual([a.request.id, b.request.id].sort());
    expect(broker.get(a.request.id)?.kind).toBe('tool');
    await Promise.resolve();
    expect(records.filter((r) => r.decision === undefined)).toHaveLength(2);
    await broker.close();
  });

  it('accept settles once; a second resolve is a no-op answer; unknown ids are not_found', async () => {
    const { broker, records } = makeBroker();
    const { request, outcome } = broker.request(toolRequest());
    const first = await broker.resolve(
      request.id,
      { kind: 'tool', decisions: { 'call-1': { type: 'accept' } } },
      'key-1',
    );
    expect(first.ok).toBe(true);
    const settled = await outcome;
    expect(settled).toMatchObject({
      resolvedBy: 'human',
      actor: 'key-1',
      decision: { decisions: { 'call-1': { type: 'accept' } } },
    });
    const second = await broker.resolve(
      request.id,
      { kind: 'tool', decisions: { 'call-1': { type: 'deny' } } },
      'key-2',
    );
    expect(second).toMatchObject({ ok: false, code: 'already_resolved' });
    expect(await broker.resolve('nope', { kind: 'tool', decisions: {} }, 'k')).toMatchObject({
      ok: false,
      code: 'not_found',
    });
    expect(broker.listPending()).toEqual([]);
    // request recorded, then its outcome (same id, upserted)
    expect(records.map((r) => [r.id, r.resolvedBy ?? null])).toEqual([
      [request.id, null],
      [request.id, 'human'],
    ]);
    expect(records[1]?.actor).toBe('key-1');
  });

  it('deny carries feedback to the caller', async () => {
    const { broker } = makeBroker();
    const { request, outcome } = broker.request(toolRequest());
    await broker.resolve(
      request.id,
      { kind: 'tool', decisions: { 'call-1': { type: 'deny' } }, feedback: 'use a temp dir' },
      'k',
    );
    expect((await outcome).decision).toEqual({
      kind: 'tool',
      decisions: { 'call-1': { type: 'deny' } },
      feedback: 'use a temp dir',
    });
  });

  it('edit is validated against the tool input schema; an invalid edit changes nothing', async () => {
    const { broker } = makeBroker();
    const { request, outcome } = broker.request(toolRequest());
    const bad = await broker.resolve(
      request.id,
      { kind: 'tool', decisions: { 'call-1': { type: 'edit', args: { path: 7 } } } },
      'k',
    );
    expect(bad).toMatchObject({ ok: false, code: 'invalid' });
    expect(bad.ok ? '' : bad.message).toMatch(/input schema/);
    expect(broker.get(request.id)).toBeDefined();
    const good = await broker.resolve(
      request.id,
      { kind: 'tool', decisions: { 'call-1': { type: 'edit', args: { path: 'b.txt', content: 'edited' } } } },
      'k',
    );
    expect(good.ok).toBe(true);
    expect((await outcome).decision).toEqual({
      kind: 'tool',
      decisions: { 'call-1': { type: 'edit', args: { path: 'b.txt', content: 'edited' } } },
    });
  });

  it('decisions must cover exactly the request tool calls and match its kind', async () => {
    const { broker } = makeBroker();
    const { request } = broker.request(toolRequest('run-1', ['c1', 'c2']));
    expect(
      await broker.resolve(request.id, { kind: 'tool', decisions: { c1: { type: 'accept' } } }, 'k'),
    ).toMatchObject({
      ok: false,
      code: 'invalid',
      message: expect.stringMatching(/missing: c2/),
    });
    expect(
      await broker.resolve(
        request.id,
        { kind: 'tool', decisions: { c1: { type: 'accept' }, c2: { type: 'accept' }, c3: { type: 'deny' } } },
        'k',
      ),
    ).toMatchObject({ ok: false, code: 'invalid', message: expect.stringMatching(/unknown tool calls: c3/) });
    expect(await broker.resolve(request.id, { kind: 'elicitation', action: 'accept' }, 'k')).toMatchObject({
      ok: false,
      code: 'invalid',
    });
    expect(broker.listPending()).toHaveLength(1);
    await broker.close();
  });

  it('timeout applies the default decision (deny), says so, records it and leaves no timer', async () => {
    const { broker, records } = makeBroker({ timeoutMs: 40 });
    const { request, outcome } = broker.request(toolRequest());
    const settled = await outcome;
    expect(settled).toMatchObject({
      requestId: request.id,
      resolvedBy: 'timeout',
      actor: 'system',
      decision: {
        kind: 'tool',
        decisions: { 'call-1': { type: 'deny' } },
        feedback: expect.stringMatching(/default \(deny\)/),
      },
    });
    // the outcome is released only after the audit write
    expect(records.at(-1)).toMatchObject({ id: request.id, resolvedBy: 'timeout', decision: settled.decision });
    expect(
      await broker.resolve(request.id, { kind: 'tool', decisions: { 'call-1': { type: 'accept' } } }, 'late'),
    ).toMatchObject({
      code: 'already_resolved',
    });
  });

  it('a per-request timeout and an accept default are honoured', async () => {
    const { broker } = makeBroker({ defaultDecision: 'accept' });
    const { outcome } = broker.request(toolRequest(), { timeoutMs: 20 });
    expect((await outcome).decision).toMatchObject({ decisions: { 'call-1': { type: 'accept' } } });
  });

  it('a timeout beyond the timer limit waits instead of firing at once', async () => {
    const { broker } = makeBroker({ timeoutMs: 30 * 24 * 3600 * 1000 });
    const { request } = broker.request(toolRequest());
    await new Promise((r) => setTimeout(r, 20));
    expect(broker.get(request.id)).toBeDefined();
    await broker.close();
  });

  it('two parallel requests resolve independently in either order', async () => {
    const { broker } = makeBroker();
    const a = broker.request(toolRequest('run-1', ['a']));
    const b = broker.request(toolRequest('run-1', ['b']));
    const order: string[] = [];
    void a.outcome.then(() => order.push('a'));
    void b.outcome.then(() => order.push('b'));
    await broker.resolve(b.request.id, { kind: 'tool', decisions: { b: { type: 'deny' } } }, 'k');
    const bOut = await b.outcome;
    expect(broker.get(a.request.id)).toBeDefined();
    await broker.resolve(a.request.id, { kind: 'tool', decisions: { a: { type: 'accept' } } }, 'k');
    const aOut = await a.outcome;
    expect(order).toEqual(['b', 'a']);
    expect(aOut.decision).toMatchObject({ decisions: { a: { type: 'accept' } } });
    expect(bOut.decision).toMatchObject({ decisions: { b: { type: 'deny' } } });
  });

  it('an abort signal and cancelRun settle as cancelled (deny); other runs are untouched', async () => {
    const { broker, records } = makeBroker();
    const controller = new AbortController();
    const bySignal = broker.request(toolRequest('run-1'), { signal: controller.signal });
    const byRun = broker.request(toolRequest('run-2'));
    const other = broker.request(toolRequest('run-3'));
    controller.abort();
    broker.cancelRun('run-2');
    for (const o of [await bySignal.outcome, await byRun.outcome]) {
      expect(o).toMatchObject({ resolvedBy: 'cancelled', decision: { decisions: { 'call-1': { type: 'deny' } } } });
    }
    expect(broker.listPending().map((r) => r.id)).toEqual([other.request.id]);
    expect(records.filter((r) => r.resolvedBy === 'cancelled')).toHaveLength(2);
    const alreadyAborted = broker.request(toolRequest('run-4'), { signal: AbortSignal.abort() });
    expect((await alreadyAborted.outcome).resolvedBy).toBe('cancelled');
    await broker.close();
    expect(broker.listPending()).toEqual([]);
  });

  it('elicitations: content is validated against requestedSchema; timeout cancels', async () => {
    const { broker } = makeBroker();
    const { request, outcome } = broker.request({
      kind: 'elicitation',
      runId: 'run-1',
      source: 'mcp:demo',
      message: 'Which city?',
      requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    expect(
      await broker.resolve(request.id, { kind: 'elicitation', action: 'accept', content: { town: 'x' } }, 'k'),
    ).toMatchObject({
      code: 'invalid',
    });
    expect(
      (await broker.resolve(request.id, { kind: 'elicitation', action: 'accept', content: { city: 'Oslo' } }, 'k')).ok,
    ).toBe(true);
    expect((await outcome).decision).toEqual({ kind: 'elicitation', action: 'accept', content: { city: 'Oslo' } });

    const timed = broker.request({ kind: 'elicitation', runId: 'run-1', source: 'x', message: 'm' }, { timeoutMs: 10 });
    expect((await timed.outcome).decision).toEqual({ kind: 'elicitation', action: 'cancel' });
  });

  it('a failing audit sink is logged and does not block the outcome', async () => {
    const errors: string[] = [];
    const broker = new ApprovalBroker({
      timeoutMs: 1000,
      defaultDecision: 'deny',
      recordApproval: async () => {
        throw new Error('db down');
      },
      logger: { debug() {}, info() {}, warn() {}, error: (m) => errors.push(m) },
    });
    const { request, outcome } = broker.request(toolRequest());
    await broker.resolve(request.id, { kind: 'tool', decisions: { 'call-1': { type: 'accept' } } }, 'k');
    expect((await outcome).resolvedBy).toBe('human');
    expect(errors.length).toBeGreaterThanOrEqual(1);
  });
});

describe("ApprovalBroker: requests belong to their run's caller", () => {
  const alice = { id: 'key-alice' };
  const bob = { id: 'key-bob' };
  const admin = { id: 'key-admin', admin: true };
  const accept = { kind: 'tool' as const, decisions: { 'call-1': { type: 'accept' as const } } };

  it('another caller cannot list, get or resolve it, before or after it settles: the answers of an unknown id', async () => {
    const { broker } = makeBroker();
    const { request, outcome } = broker.request({ ...toolRequest('run-a'), callerId: alice.id });
    const unknown = await broker.resolve('no-such-id', accept, bob.id, bob);

    expect(broker.listPending(undefined, bob)).toEqual([]);
    expect(broker.listPending('run-a', bob)).toEqual([]);
    expect(broker.get(request.id, bob)).toBeUndefined();
    const refused = await broker.resolve(request.id, accept, bob.id, bob);
    if (refused.ok || unknown.ok) throw new Error('expected both to be refused');
    expect([refused.code, refused.message.replace(request.id, '<id>')]).toEqual([
      unknown.code,
      unknown.message.replace('no-such-id', '<id>'),
    ]);
    expect(broker.get(request.id)).toBeDefined(); // still pending

    expect(broker.listPending(undefined, alice).map((r) => r.id)).toEqual([request.id]);
    expect(broker.listPending(undefined, admin).map((r) => r.id)).toEqual([request.id]);
    expect(broker.get(request.id, admin)?.callerId).toBe(alice.id);
    expect((await broker.resolve(request.id, accept, admin.id, admin)).ok).toBe(true);
    expect((await outcome).actor).toBe(admin.id);

    // Settled: its owner hears "already resolved"; another caller still hears "not found".
    expect(await broker.resolve(request.id, accept, alice.id, alice)).toMatchObject({
      ok: false,
      code: 'already_resolved',
    });
    expect(await broker.resolve(request.id, accept, bob.id, bob)).toMatchObject({ ok: false, code: 'not_found' });
    await broker.close();
  });
});

describe('ApprovalBroker between replicas (one in-process cluster, shared)', () => {
  it('a sweep that read the store before an answer does not list the answered request again', async () => {
    const cluster = { ...createLocalCluster(), shared: true };
    const a = makeBroker({ cluster }).broker;
    const b = makeBroker({ cluster }).broker;
    const { request } = a.request(toolRequest());
    // B's sweep reads the shared store's pending requests: A's is listed on B.
    b.syncRemote([structuredClone(request)]);
    expect(b.listPending().map((r) => r.id)).toEqual([request.id]);
    const staleRead = [structuredClone(request)]; // the next sweep's read, made before the answer
    const answer = { kind: 'tool' as const, decisions: { 'call-1': { type: 'accept' as const } } };
    expect(await a.resolve(request.id, answer, 'tester')).toMatchObject({ ok: true });
    await vi.waitFor(() => expect(b.listPending()).toEqual([]));
    b.syncRemote(staleRead);
    expect(b.listPending()).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });
});
