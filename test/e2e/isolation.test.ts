/**
 * Caller isolation (issue 12 §1) on the whole server as deployed: createParley with the shipped
 * mcp_config.json (the real filesystem server, whose write_file needs approval), two callers' keys
 * and an admin key, driven over real HTTP and each protocol's own client SDK. Another caller's run,
 * approval, MCP session or ACP connection must answer exactly like one that does not exist, and
 * nothing one caller asked or was told may reach a model request made for another caller's run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { methods } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import type { GraphEvent, GraphEventOf } from '../../src/graph/run/events.ts';
import { callerIdOf } from '../../src/http/auth.ts';
import type { Parley } from '../../src/server.ts';
import { startShippedParley, writeFileQuery, type ShippedParley } from '../support/server.ts';
import { postJson, readAll, readSse } from '../support/protocols/sse-read.ts';
import { recordingClient } from '../support/protocols/acp-client.ts';
import { rawRequest, type RawAnswer } from '../support/raw-http.ts';

const K1 = 'isolation-key-one';
const K2 = 'isolation-key-two';
const ADMIN = 'isolation-admin-key';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let server: ShippedParley;
let parley: Parley;
let url: string;
let dataDir: string;

beforeAll(async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: `${K1},${K2}`, PARLEY_ADMIN_KEYS: ADMIN });
  ({ parley, url, dataDir } = server);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** A query the scripted model plans as one filesystem step that calls write_file (which needs approval). */
const writeQuery = (file: string, content: string) => writeFileQuery(dataDir, file, content);

/** Starts a run over POST /stream and reads it up to its first approval request. */
async function runUntilApproval(key: string, query: string) {
  const res = await postJson(`${url}/stream`, { query, mode: 'orchestrate' }, bearer(key));
  expect(res.status).toBe(200);
  const stream = readSse(res);
  for (let m = await stream.next(); !m.done; m = await stream.next()) {
    if (m.value.json.type === 'approval.requested')
      return { request: m.value.json as GraphEventOf<'approval.requested'>, stream };
  }
  throw new Error('the run ended without asking for approval');
}

/** A whole run over POST /stream: its events, once the run is in execution memory (recorded after run.finished). */
async function runToEnd(key: string, query: string, mode = 'orchestrate'): Promise<GraphEvent[]> {
  const res = await postJson(`${url}/stream`, { query, mode }, bearer(key));
  expect(res.status).toBe(200);
  const events = (await readAll(res)).map((m) => m.json);
  await parley.engine.get(events[0]!.runId)?.result;
  return events;
}

const finished = (events: GraphEvent[]) =>
  events.find((e): e is GraphEventOf<'run.finished'> => e.type === 'run.finished')!;

interface Answer {
  status: number;
  body: string;
}

async function answer(path: string, key: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    ...init,
    headers: { ...bearer(key), ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, body: await res.text() };
}

/**
 * What `key` gets for `path` with `id` in it, and what it gets for a fresh id nobody has: the two
 * must be the same answer, the id aside.
 */
async function sameAsUnknown(
  key: string,
  id: string,
  path: (id: string) => string,
  init: (id: string) => RequestInit = () => ({}),
) {
  const ghost = randomUUID();
  const real = await answer(path(id), key, init(id));
  const unknown = await answer(path(ghost), key, init(ghost));
  expect(real.status).toBe(404);
  expect(real.body.split(id).join('<id>')).toBe(unknown.body.split(ghost).join('<id>'));
}

describe('runs, events and approvals over HTTP', () => {
  it("another caller's live run and pending approval answer exactly like unknown ones; the admin sees and acts on them", async () => {
    const { request, stream } = await runUntilApproval(K1, writeQuery('k1.txt', 'first caller'));
    const runId = request.runId;
    const approvalId = request.request.id;
    const call = request.request.kind === 'tool' ? request.request.toolCalls[0]! : undefined;
    const approve = (id: string): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: id, decisions: { [call!.toolCallId]: 'accept' } }),
    });

    // k2: not listed, not readable, not answerable, not cancellable.
    const listed = JSON.parse((await answer('/api/approvals', K2)).body) as { approvals: { id: string }[] };
    expect(listed.approvals.map((a) => a.id)).not.toContain(approvalId);
    const byRun = JSON.parse((await answer(`/api/approvals?runId=${runId}`, K2)).body) as { approvals: unknown[] };
    expect(byRun.approvals).toEqual([]);
    await sameAsUnknown(K2, approvalId, (id) => `/api/approvals/${id}`);
    await sameAsUnknown(K2, approvalId, () => '/api/approve', approve);
    await sameAsUnknown(
      K2,
      runId,
      (id) => `/api/runs/${id}/events`,
      () => ({ headers: { accept: 'application/json' } }),
    );
    await sameAsUnknown(K2, runId, (id) => `/stream/${id}`);
    await sameAsUnknown(K2, runId, (id) => `/api/runs/${id}`);
    const k2Running = JSON.parse((await answer('/api/runs?status=running', K2)).body) as { runs: { id: string }[] };
    expect(k2Running.runs.map((r) => r.id)).not.toContain(runId);
    await sameAsUnknown(
      K2,
      runId,
      (id) => `/stream/${id}/cancel`,
      () => ({ method: 'POST' }),
    );

    // k1 still sees its own; the admin sees it too and may answer it.
    const own = JSON.parse((await answer(`/api/approvals?runId=${runId}`, K1)).body) as { approvals: { id: string }[] };
    expect(own.approvals.map((a) => a.id)).toEqual([approvalId]);
    const seenByAdmin = JSON.parse((await answer('/api/approvals', ADMIN)).body) as { approvals: { id: string }[] };
    expect(seenByAdmin.approvals.map((a) => a.id)).toContain(approvalId);
    expect((await answer(`/api/approvals/${approvalId}`, ADMIN)).status).toBe(200);
    // A run still going (execution memory records it only at its end) is readable by its owner and an admin.
    const running = JSON.parse((await answer(`/api/runs/${runId}`, K1)).body) as {
      status: string;
      steps: { status: string }[];
      approvals: { id: string; status: string }[];
    };
    expect(running.status).toBe('running');
    expect(running.steps.length).toBeGreaterThan(0);
    expect(running.steps.every((s) => s.status === 'pending')).toBe(true);
    expect(running.approvals).toEqual([expect.objectContaining({ id: approvalId, status: 'pending' })]);
    const k1Running = JSON.parse((await answer('/api/runs', K1)).body) as { runs: { id: string; status: string }[] };
    expect(k1Running.runs[0]).toEqual(expect.objectContaining({ id: runId, status: 'running' }));
    const adminRunning = JSON.parse((await answer('/api/runs?status=running', ADMIN)).body) as {
      runs: { id: string }[];
    };
    expect(adminRunning.runs.map((r) => r.id)).toContain(runId);
    const events = await answer(`/api/runs/${runId}/events`, ADMIN, { headers: { accept: 'application/json' } });
    expect(events.status).toBe(200);
    expect((await answer('/api/approve', ADMIN, approve(approvalId))).status).toBe(200);

    const rest: GraphEvent[] = [];
    for await (const m of stream) rest.push(m.json);
    expect(finished(rest).status).toBe('completed');
    // The tool ran: k2's attempts changed nothing, the admin's answer counted.
    expect(rest.some((e) => e.type === 'tool.finished' && e.status === 'ok')).toBe(true);

    // Once recorded: k2 neither lists nor reads the run; k1 and the admin do.
    await expect.poll(async () => (await answer(`/api/runs/${runId}`, K1)).status).toBe(200);
    const k2Runs = JSON.parse((await answer('/api/runs?limit=1000', K2)).body) as { runs: { id: string }[] };
    expect(k2Runs.runs.map((r) => r.id)).not.toContain(runId);
    await sameAsUnknown(K2, runId, (id) => `/api/runs/${id}`);
    const adminRuns = JSON.parse((await answer('/api/runs?limit=1000', ADMIN)).body) as { runs: { id: string }[] };
    expect(adminRuns.runs.map((r) => r.id)).toContain(runId);
    expect((await answer(`/api/runs/${runId}`, ADMIN)).status).toBe(200);
  }, 60_000);

  it("a caller cannot cancel another caller's run; its owner can", async () => {
    const { request, stream } = await runUntilApproval(K1, writeQuery('k1-cancel.txt', 'to be cancelled'));
    await sameAsUnknown(
      K2,
      request.runId,
      (id) => `/stream/${id}/cancel`,
      () => ({ method: 'POST' }),
    );
    expect((await answer(`/stream/${request.runId}/cancel`, K1, { method: 'POST' })).status).toBe(202);
    const rest: GraphEvent[] = [];
    for await (const m of stream) rest.push(m.json);
    expect(finished(rest).status).toBe('cancelled');
  }, 60_000);
});

describe('every method, with a body or without, on every route that names a run or an approval', () => {
  /** Routes with an id in them, and the bodies a request may carry (issue 44 §1: TRACE with one was a 500). */
  const ROUTES = [
    (id: string) => `/api/runs/${id}`,
    (id: string) => `/api/runs/${id}/events`,
    (id: string) => `/api/runs/${id}/checkpoints`,
    (id: string) => `/api/runs/${id}/fork`,
    (id: string) => `/api/runs/${id}/replay`,
    (id: string) => `/stream/${id}`,
    (id: string) => `/stream/${id}/cancel`,
    (id: string) => `/api/approvals/${id}`,
    (id: string) => `/api/threads/${id}`,
  ];
  const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'CONNECT'];
  const BODIES = [undefined, (id: string) => JSON.stringify({ request_id: id, runId: id, decisions: {} })];

  it("k2 gets for k1's run and approval exactly what it gets for unknown ones, and changes nothing", async () => {
    const { request, stream } = await runUntilApproval(K1, writeQuery('k1-methods.txt', 'methods'));
    const { runId, request: approval } = request;
    const ghost = randomUUID();
    const differing: string[] = [];
    for (const route of ROUTES)
      for (const method of METHODS)
        for (const body of BODIES)
          for (const id of [runId, approval.id]) {
            const sent = (x: string) =>
              rawRequest(
                url,
                method,
                route(x),
                bearer(K2),
                method === 'GET' || method === 'HEAD' ? undefined : body?.(x),
              );
            const [real, unknown] = [await sent(id), await sent(ghost)];
            const same = (a: RawAnswer, x: string) => `${a.status} ${a.allow} ${a.body.split(x).join('<id>')}`;
            if (same(real, id) !== same(unknown, ghost) || real.status >= 500)
              differing.push(
                `${method} ${route('<id>')}${body ? ' +body' : ''}: ${same(real, id)} vs ${same(unknown, ghost)}`,
              );
          }
    expect(differing).toEqual([]);

    // Nothing changed: the run still waits on the same approval, and k1 answers it.
    const own = JSON.parse((await answer(`/api/approvals?runId=${runId}`, K1)).body) as { approvals: { id: string }[] };
    expect(own.approvals.map((a) => a.id)).toEqual([approval.id]);
    const call = approval.kind === 'tool' ? approval.toolCalls[0]! : undefined;
    const approved = await answer('/api/approve', K1, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: approval.id, decisions: { [call!.toolCallId]: 'accept' } }),
    });
    expect(approved.status).toBe(200);
    const rest: GraphEvent[] = [];
    for await (const m of stream) rest.push(m.json);
    expect(finished(rest).status).toBe('completed');
  }, 120_000);
});

describe('execution memory and team reuse stay within one caller', () => {
  it("k1's query and answer never reach a model request made for k2's run", async () => {
    const secret = `SECRET${randomUUID().slice(0, 8).toUpperCase()}`;
    const topic = 'pelican zorblax migration checklist for the warehouse';
    const first = await runToEnd(K1, `${topic} ${secret}`);
    expect(finished(first).status).toBe('completed');
    // The memory holds it for its own caller: k1's next run on the topic gets it in its prompts.
    const again = await runToEnd(K1, `${topic} again`);
    const againRequests = parley.scripted!.requests.filter((r) => r.runId === again[0]!.runId);
    expect(againRequests.length).toBeGreaterThan(0);
    expect(againRequests.some((r) => JSON.stringify(r.body).includes(secret))).toBe(true);

    const other = await runToEnd(K2, `${topic} please`);
    expect(finished(other).status).toBe('completed');
    const requests = parley.scripted!.requests.filter((r) => r.runId === other[0]!.runId);
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(JSON.stringify(r.body)).not.toContain(secret);
  }, 60_000);

  it("k2 never reuses a team (plan and objectives) that k1's runs taught; k1 does", async () => {
    const query = 'Draft the quarterly ocelot budget review for finance';
    const routeOf = (events: GraphEvent[]) =>
      events.find((e): e is GraphEventOf<'route.decided'> => e.type === 'route.decided')!;
    expect(finished(await runToEnd(K1, query)).status).toBe('completed');
    const reused = await runToEnd(K1, query);
    expect(routeOf(reused).teamConfigId).toBeDefined();
    const other = await runToEnd(K2, query);
    expect(finished(other).status).toBe('completed');
    expect(routeOf(other).teamConfigId).toBeUndefined();
  }, 60_000);
});

describe('MCP: sessions, tools and resources', () => {
  const connect = async (key: string) => {
    const client = new Client({ name: `isolation-${key}`, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: bearer(key) },
    });
    await client.connect(transport);
    return { client, transport };
  };
  const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]?.text ?? '';

  it("k2 cannot use k1's session: the same answer as an unknown session", async () => {
    const k1 = await connect(K1);
    const sessionId = k1.transport.sessionId!;
    expect(sessionId).toBeTruthy();
    const ping = (sid: string, key: string) =>
      answer('/mcp', key, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const foreign = await ping(sessionId, K2);
    const unknown = await ping(randomUUID(), K2);
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(unknown);
    // Even an admin does not speak in another key's session.
    expect(await ping(sessionId, ADMIN)).toEqual(unknown);

    // Through k2's own SDK client pointed at k1's session id: refused like a closed session.
    const hijack = new Client({ name: 'hijack', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      sessionId,
      requestInit: { headers: bearer(K2) },
    });
    // (With a session id the client resumes rather than initializes: its first request is refused.)
    await hijack.connect(transport);
    await expect(hijack.callTool({ name: 'search_memory', arguments: { query: 'anything' } })).rejects.toThrow(
      /Session not found|404/,
    );

    // k1's session is untouched.
    expect((await k1.client.listTools()).tools.map((t) => t.name)).toContain('get_run');
    await k1.client.close();
  }, 60_000);

  it("get_run, approve, search_memory and resources answer k2 as if k1's runs and approvals did not exist", async () => {
    const k1 = await connect(K1);
    const k2 = await connect(K2);
    const admin = await connect(ADMIN);
    const secret = `MCPSECRET${randomUUID().slice(0, 6).toUpperCase()}`;
    const ask = await k1.client.callTool({
      name: 'ask',
      arguments: { query: `kestrel inventory audit ${secret} [[route:direct]]` },
    });
    const runId = (ask.structuredContent as { runId: string }).runId;
    await expect.poll(async () => (await parley.store.getRun(runId))?.status).toBe('completed');
    const ghost = randomUUID();

    const getRun = async (c: Client, id: string) => c.callTool({ name: 'get_run', arguments: { run_id: id } });
    const foreignRun = await getRun(k2.client, runId);
    const unknownRun = await getRun(k2.client, ghost);
    expect(foreignRun.isError).toBe(true);
    expect(text(foreignRun).replace(runId, '<id>')).toBe(text(unknownRun).replace(ghost, '<id>'));
    expect(text(await getRun(k1.client, runId))).toContain(secret);
    expect(text(await getRun(admin.client, runId))).toContain(secret);

    const hits = await k2.client.callTool({
      name: 'search_memory',
      arguments: { query: `kestrel inventory audit ${secret}` },
    });
    expect(JSON.stringify(hits)).not.toContain(secret);
    const ownHits = await k1.client.callTool({
      name: 'search_memory',
      arguments: { query: `kestrel inventory audit ${secret}` },
    });
    expect(JSON.stringify(ownHits)).toContain(secret);
    // The same search over HTTP (the console's memory view).
    const memory = async (key: string) =>
      (
        await fetch(`${url}/api/memory?q=${encodeURIComponent(`kestrel inventory audit ${secret}`)}`, {
          headers: bearer(key),
        })
      ).text();
    expect(await memory(K2)).not.toContain(secret);
    expect(await memory(K1)).toContain(secret);
    expect(await memory(ADMIN)).toContain(secret);

    const listed = await k2.client.listResources();
    expect(listed.resources.map((r) => r.uri)).not.toContain(`parley://runs/${runId}`);
    expect((await k1.client.listResources()).resources.map((r) => r.uri)).toContain(`parley://runs/${runId}`);
    const read = (c: Client, id: string) =>
      c.readResource({ uri: `parley://runs/${id}` }).then(
        () => 'found',
        (err: Error) => err.message,
      );
    const foreignRead = await read(k2.client, runId);
    expect(foreignRead).not.toBe('found');
    expect(foreignRead.replace(runId, '<id>')).toBe((await read(k2.client, ghost)).replace(ghost, '<id>'));
    expect(await read(admin.client, runId)).toBe('found');

    // A pending approval of k1's: k2's approve tool gets the unknown-id answer, and it stays pending.
    const { request, stream } = await runUntilApproval(K1, writeQuery('k1-mcp.txt', 'via mcp'));
    const call = request.request.kind === 'tool' ? request.request.toolCalls[0]! : undefined;
    const approve = (c: Client, id: string) =>
      c.callTool({ name: 'approve', arguments: { request_id: id, decisions: { [call!.toolCallId]: 'accept' } } });
    const foreign = await approve(k2.client, request.request.id);
    const unknown = await approve(k2.client, ghost);
    expect(foreign.isError).toBe(true);
    expect(text(foreign).replace(request.request.id, '<id>')).toBe(text(unknown).replace(ghost, '<id>'));
    expect(parley.approvals.get(request.request.id)).toBeDefined();
    expect((await approve(admin.client, request.request.id)).isError).toBeFalsy();
    for await (const _ of stream) void _;

    for (const c of [k1, k2, admin]) await c.client.close();
  }, 60_000);
});

describe('council decisions', () => {
  it('carry the caller of the council run', async () => {
    const events = await runToEnd(K1, 'Should we adopt the heron release process?', 'council');
    expect(finished(events).status).toBe('completed');
    const runId = events[0]!.runId;
    const mine = await parley.store.listDecisions(50, { callerId: callerIdOf(K1) });
    expect(mine.find((d) => d.runId === runId)?.callerId).toBe(callerIdOf(K1));
    expect((await parley.store.listDecisions(50, { callerId: callerIdOf(K2) })).some((d) => d.runId === runId)).toBe(
      false,
    );
  }, 60_000);
});

describe('ACP over HTTP: a connection belongs to the key that opened it', () => {
  it("k2 naming k1's Acp-Connection-Id gets the unknown-connection answer, and k1's connection keeps working", async () => {
    let connectionId: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      connectionId ??= res.headers.get('acp-connection-id') ?? undefined;
      return res;
    };
    const rc = recordingClient();
    await rc.app.connectWith(createHttpStream(`${url}/acp`, { headers: bearer(K1), fetch: recording }), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      expect(connectionId).toBeTruthy();
      const newSession = (id: string, key: string) =>
        answer('/acp', key, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'acp-connection-id': id },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'session/new',
            params: { cwd: dataDir, mcpServers: [] },
          }),
        });
      const ghost = randomUUID();
      const foreign = await newSession(connectionId!, K2);
      expect(foreign.status).toBe(404);
      expect(foreign).toEqual(await newSession(ghost, K2));
      const del = (id: string, key: string) =>
        answer('/acp', key, { method: 'DELETE', headers: { 'acp-connection-id': id } });
      expect(await del(connectionId!, K2)).toEqual(await del(ghost, K2));
      const listen = (id: string, key: string) =>
        answer('/acp', key, { headers: { accept: 'text/event-stream', 'acp-connection-id': id } });
      expect(await listen(connectionId!, ADMIN)).toEqual(await listen(ghost, ADMIN));

      // Still k1's, still open.
      const session = await ctx.request(methods.agent.session.new, { cwd: dataDir, mcpServers: [] });
      expect(session.sessionId).toBeTruthy();
    });
  }, 60_000);
});

describe('operator routes', () => {
  it('only an admin key reads the tool configuration (it names server files) or reloads it', async () => {
    for (const key of [K1, K2]) {
      const config = await fetch(`${url}/mcp/config`, { headers: bearer(key) });
      expect(config.status).toBe(403);
      const body = (await config.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('forbidden');
      expect(body.error.message).toContain('PARLEY_ADMIN_KEYS');
      expect(JSON.stringify(body)).not.toContain(dataDir);
      expect((await fetch(`${url}/mcp/reload`, { method: 'POST', headers: bearer(key) })).status).toBe(403);
    }
    const admin = await fetch(`${url}/mcp/config`, { headers: bearer(ADMIN) });
    expect(admin.status).toBe(200);
    expect(((await admin.json()) as { servers: { name: string }[] }).servers.map((s) => s.name)).toContain(
      'filesystem',
    );
  });
});
