import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createHttpApp } from '../../../src/http/app.ts';
import { callerIdOf } from '../../../src/http/auth.ts';
import { silentLogger } from '../../../src/log.ts';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import type { ApprovalRecord } from '../../../src/knowledge/store.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../../../src/hitl/types.ts';
import { listen, type TestServer } from '../../support/http.ts';

const KEY = 'test-key';
const records: ApprovalRecord[] = [];
const broker = new ApprovalBroker({
  timeoutMs: 60_000,
  defaultDecision: 'deny',
  recordApproval: async (r) => {
    records.push(r);
  },
});
let server: TestServer;

beforeAll(async () => {
  // Mounted the way the server mounts it: behind the real API-key auth, body limit and error handler.
  const app = createHttpApp({
    version: 'test',
    apiKeys: [KEY],
    bodyLimitBytes: 64 * 1024,
    logger: silentLogger,
    readiness: [],
    routes: [{ path: '/', app: approvalRoutes({ broker }) }],
  });
  server = await listen(app as unknown as Hono);
});
afterAll(async () => {
  await broker.close();
  await server.close();
});

interface ApiBody {
  outcome: ApprovalOutcome;
  approvals: ApprovalRequest[];
  approval: ApprovalRequest;
  error: { code: string; message: string };
}
const json = async (res: Response): Promise<ApiBody> => (await res.json()) as ApiBody;

const post = (body: unknown, auth = true) =>
  fetch(`${server.url}/api/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${KEY}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

function askWrite(runId = 'run-1', toolCallId = 'call-1') {
  // A request of a run the key's caller started (requests belong to their run's caller).
  return broker.request({
    kind: 'tool',
    runId,
    callerId: callerIdOf(KEY),
    toolCalls: [
      {
        toolCallId,
        tool: 'fs/write_file',
        args: { path: 'a.txt', content: 'x' },
        reason: 'annotations: destructiveHint',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' } },
          required: ['path', 'content'],
        },
      },
    ],
  });
}

describe('POST /api/approve and GET /api/approvals', () => {
  it('401 without a bearer key; nothing changes', async () => {
    const { request } = askWrite();
    const res = await post({ request_id: request.id, decisions: { 'call-1': 'accept' } }, false);
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('unauthorized');
    expect(broker.get(request.id)).toBeDefined();
    expect((await fetch(`${server.url}/api/approvals`)).status).toBe(401);
    broker.cancelRun('run-1');
  });

  it('accept → 200 with the resolution; a second resolve → 409 already_resolved', async () => {
    const { request, outcome } = askWrite();
    const res = await post({ request_id: request.id, decisions: { 'call-1': 'accept' } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.outcome).toMatchObject({ requestId: request.id, resolvedBy: 'human', actor: callerIdOf(KEY) });
    expect((await outcome).decision).toEqual({ kind: 'tool', decisions: { 'call-1': { type: 'accept' } } });
    const again = await post({ id: request.id, decisions: { 'call-1': 'deny' } });
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('already_resolved');
  });

  it('deny with feedback and edit with valid args', async () => {
    const denied = askWrite('run-2', 'd1');
    expect(
      (await post({ request_id: denied.request.id, decisions: { d1: 'deny' }, feedback: 'not there' })).status,
    ).toBe(200);
    expect((await denied.outcome).decision).toEqual({
      kind: 'tool',
      decisions: { d1: { type: 'deny' } },
      feedback: 'not there',
    });

    const edited = askWrite('run-2', 'e1');
    const res = await post({
      request_id: edited.request.id,
      decisions: { e1: { edit: { path: 'b.txt', content: 'y' } } },
    });
    expect(res.status).toBe(200);
    expect((await edited.outcome).decision).toEqual({
      kind: 'tool',
      decisions: { e1: { type: 'edit', args: { path: 'b.txt', content: 'y' } } },
    });
  });

  it('400 naming the field for bad bodies and invalid edits; the request stays pending', async () => {
    const { request } = askWrite('run-3', 'c1');
    const cases: [unknown, RegExp][] = [
      ['{not json', /JSON/],
      [{ decisions: { c1: 'accept' } }, /^request_id/],
      [{ request_id: request.id }, /^decisions/],
      [{ request_id: request.id, decisions: { c1: 'maybe' } }, /^decisions\.c1/],
      [{ request_id: request.id, decisions: { c1: 'accept' }, extra: 1 }, /extra/],
      [{ request_id: request.id, action: 'sure' }, /^action/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const { error } = await json(res);
      expect(error.message).toMatch(message);
    }
    const badEdit = await post({ request_id: request.id, decisions: { c1: { edit: { path: 3 } } } });
    expect(badEdit.status).toBe(400);
    expect(await json(badEdit)).toMatchObject({
      error: { code: 'invalid_decision', message: expect.stringMatching(/input schema/) },
    });
    const missing = await post({ request_id: request.id, decisions: {} });
    expect(missing.status).toBe(400);
    expect(broker.get(request.id)).toBeDefined();
    broker.cancelRun('run-3');
  });

  it('404 for an unknown id', async () => {
    const res = await post({ request_id: 'does-not-exist', decisions: { x: 'accept' } });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('GET /api/approvals lists pending requests, filtered by run', async () => {
    const a = askWrite('run-a');
    const b = askWrite('run-b');
    const auth = { authorization: `Bearer ${KEY}` };
    const all = await json(await fetch(`${server.url}/api/approvals`, { headers: auth }));
    expect(all.approvals.map((r: ApprovalRequest) => r.id)).toEqual(
      expect.arrayContaining([a.request.id, b.request.id]),
    );
    const onlyA = await json(await fetch(`${server.url}/api/approvals?runId=run-a`, { headers: auth }));
    expect(onlyA.approvals.map((r: ApprovalRequest) => r.id)).toEqual([a.request.id]);
    const one = await fetch(`${server.url}/api/approvals/${b.request.id}`, { headers: auth });
    expect((await json(one)).approval.runId).toBe('run-b');
    broker.cancelRun('run-a');
    broker.cancelRun('run-b');
  });

  it('elicitations resolve with action and content', async () => {
    const { request, outcome } = broker.request({
      kind: 'elicitation',
      runId: 'run-e',
      callerId: callerIdOf(KEY),
      source: 'mcp:demo',
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const bad = await post({ request_id: request.id, action: 'accept', content: {} });
    expect(bad.status).toBe(400);
    const ok = await post({ request_id: request.id, action: 'accept', content: { name: 'Ada' } });
    expect(ok.status).toBe(200);
    expect((await outcome).decision).toEqual({ kind: 'elicitation', action: 'accept', content: { name: 'Ada' } });
    expect(records.some((r) => r.id === request.id && r.resolvedBy === 'human')).toBe(true);
  });
});
