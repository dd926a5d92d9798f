/** The knowledge HTTP routes over real HTTP on 127.0.0.1, backed by Kuzu in memory and real ingestion. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Hono } from 'hono';
import type { ParleyEnv } from '../../../src/http/auth.ts';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';
import { knowledgeRoutes } from '../../../src/knowledge/routes.ts';
import { createIngestion } from '../../../src/knowledge/ingest/ingestion.ts';
import { errorHandler, notFound } from '../../../src/http/errors.ts';
import { silentLogger } from '../../../src/log.ts';
import { listen, type TestServer } from '../../support/http.ts';
import { ROSTER, run, step } from '../../support/records.ts';

const STDIO_FIXTURE = resolve('test/fixtures/knowledge/mcp-stdio-server.ts');

describe('knowledge routes', () => {
  let dir: string;
  let store: KnowledgeStore;
  let server: TestServer;
  let configPath: string;
  // The routes are served without auth here, so every request is the one local caller: its run.
  const recorded = run('Design a Postgres schema', [step('s1', 'database'), step('s2', 'writer')], {
    score: 0.9,
    callerId: 'anonymous',
  });

  const writeConfig = (servers: Record<string, unknown>) =>
    writeFileSync(configPath, JSON.stringify({ mcpServers: servers }));
  const invoices = (tools: string) => ({
    command: process.execPath,
    args: ['--import', 'tsx', STDIO_FIXTURE],
    cwd: process.cwd(),
    env: { FIXTURE_TOOLS: tools, SECRET_TOKEN: '${TOKEN}' },
    requireApproval: ['delete_invoice'],
    timeoutMs: 1234,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-routes-'));
    configPath = join(dir, 'mcp_config.json');
    mkdirSync(join(dir, 'skills'));
    writeConfig({
      invoices: invoices('lookup_invoice,delete_invoice'),
      api: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, disabled: true },
    });
    store = await openKuzuStore({ path: ':memory:' });
    await store.upsertSpecialists(ROSTER);
    await store.recordRun(recorded);
    await store.recordApproval({
      id: 'ap1',
      runId: recorded.id,
      kind: 'tool',
      request: { tool: 'fs/write_file' },
      requestedAt: '2026-01-01T00:00:00.000Z',
    });
    const ingestion = createIngestion({
      store,
      knowledge: { mcpConfigPath: configPath, skillsDirs: [join(dir, 'skills')], a2aPeers: [] },
      env: { TOKEN: 'very-secret' },
    });
    await ingestion.ingest();
    const app = new Hono();
    app.onError(errorHandler(silentLogger));
    app.notFound(notFound);
    app.route('/', knowledgeRoutes({ store, reingest: ingestion.ingest, mcpConfig: ingestion.mcpConfig }));
    server = await listen(app);
  });
  afterAll(async () => {
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const res = await fetch(server.url + path);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const ids = (body: Record<string, unknown>) => (body.specialists as { id: string }[]).map((s) => s.id).sort();

  it('lists specialists with kind, domain, availability and text filters', async () => {
    expect(ids((await get('/api/specialists')).body)).toEqual([...ROSTER.map((s) => s.id), 'invoices'].sort());
    expect(ids((await get('/api/specialists?kind=mcp')).body)).toEqual(['invoices']);
    expect(ids((await get('/api/specialists?domain=programming')).body)).toEqual([
      'python-programmer',
      'typescript-programmer',
    ]);
    // The fixture roster's source (skills:test) is not configured here, so ingestion marked it gone.
    expect(ids((await get('/api/specialists?available=false')).body)).toEqual(ROSTER.map((s) => s.id).sort());
    expect(ids((await get('/api/specialists?available=true')).body)).toEqual(['invoices']);
    expect(ids((await get('/api/specialists?q=kubernetes')).body)).toEqual(['devops']);
  });

  it('rejects bad query parameters with 400 in the error shape', async () => {
    const bad = await get('/api/specialists?kind=robot');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'bad_request', message: expect.stringContaining('"kind"') } });
    expect((await get('/api/specialists?available=maybe')).status).toBe(400);
    expect((await get('/api/specialists?colour=red')).body).toEqual({
      error: { code: 'bad_request', message: 'Unknown query parameter: colour.' },
    });
    expect((await get('/api/runs?limit=0')).status).toBe(400);
  });

  it('lists runs and returns one with steps and approvals; 404 JSON for an unknown id', async () => {
    const runs = await get('/api/runs?limit=5&status=completed');
    expect(runs.body.runs).toEqual([
      {
        id: recorded.id,
        query: recorded.query,
        status: 'completed',
        startedAt: recorded.startedAt,
        durationMs: recorded.durationMs,
        score: 0.9,
        threadId: recorded.threadId,
        protocol: recorded.protocol,
        callerId: 'anonymous',
      },
    ]);
    // The console filters by protocol (GET /api/runs?protocol=).
    expect((await get(`/api/runs?protocol=${recorded.protocol}`)).body.runs).toMatchObject([{ id: recorded.id }]);
    expect((await get('/api/runs?protocol=a2a')).body.runs).toEqual([]);
    const one = await get(`/api/runs/${recorded.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: recorded.id,
      steps: [
        { id: 's1', specialist: 'database' },
        { id: 's2', specialist: 'writer' },
      ],
      approvals: [{ id: 'ap1' }],
    });
    const missing = await get('/api/runs/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'not_found', message: 'No run with id "nope".' } });
  });

  it("adds each specialist's proficiency on request, zeros for one that never ran", async () => {
    const listed = (await get('/api/specialists?include=proficiency')).body.specialists as {
      id: string;
      proficiency: { subject: string; runs: number };
    }[];
    expect(listed.length).toBeGreaterThan(0);
    for (const s of listed) expect(s.proficiency).toMatchObject({ subject: s.id });
    expect(listed.find((s) => s.id === 'database')?.proficiency.runs).toBeGreaterThan(0);
    expect((await get('/api/specialists?include=everything')).status).toBe(400);
  });

  it("searches execution memory over the caller's runs; an empty query is a 400", async () => {
    const found = await get('/api/memory?q=Postgres%20schema&k=5');
    expect(found.status).toBe(200);
    expect((found.body.hits as { runId: string }[]).map((h) => h.runId)).toContain(recorded.id);
    expect((await get('/api/memory?q=%20')).status).toBe(400);
    expect((await get('/api/memory?q=x&k=500')).status).toBe(400);
  });

  it("shows each MCP server's state to every caller, its last error only to operators", async () => {
    const status = [
      {
        server: 'billing',
        connected: false,
        breaker: 'open' as const,
        lastError: 'connect ECONNREFUSED 10.0.0.5:9',
        tools: 0,
      },
    ];
    const as = async (caller: { id: string; admin?: boolean }) => {
      const app = new Hono<ParleyEnv>();
      app.use('*', async (c, next) => {
        c.set('caller', caller);
        await next();
      });
      app.route('/', knowledgeRoutes({ store, reingest: async () => ({}) as never, toolStatus: () => status }));
      const res = await app.request('/mcp/servers');
      return (await res.json()) as { servers: Record<string, unknown>[] };
    };
    expect((await as({ id: 'key-plain' })).servers).toEqual([
      { server: 'billing', connected: false, breaker: 'open', tools: 0 },
    ]);
    expect((await as({ id: 'key-admin', admin: true })).servers).toEqual(status);
    expect((await get('/mcp/servers')).body.servers).toEqual([]);
  });

  it('shows the MCP config with secrets redacted', async () => {
    const { body } = await get('/mcp/config');
    const text = JSON.stringify(body);
    expect(text).not.toContain('very-secret');
    const servers = body.servers as { name: string; env?: Record<string, string>; headers?: Record<string, string> }[];
    expect(servers.find((s) => s.name === 'invoices')?.env).toEqual({
      FIXTURE_TOOLS: '[redacted]',
      SECRET_TOKEN: '[redacted]',
    });
    expect(servers.find((s) => s.name === 'api')?.headers).toEqual({ Authorization: '[redacted]' });
  });

  it("lists tools with annotations and the config's approval and timeout", async () => {
    const { body } = await get('/mcp/tools?server=invoices');
    const tools = body.tools as {
      id: string;
      annotations: Record<string, unknown>;
      requireApproval?: boolean;
      timeoutMs?: number;
    }[];
    expect(tools.map((t) => t.id)).toEqual(['invoices/delete_invoice', 'invoices/lookup_invoice']);
    expect(tools[0]).toMatchObject({ requireApproval: true, timeoutMs: 1234, annotations: { destructiveHint: true } });
    expect(tools[1]?.requireApproval).toBeUndefined();
  });

  it('re-ingests on POST /mcp/reload, and a broken config is a 400 that changes nothing', async () => {
    writeConfig({ invoices: invoices('lookup_invoice') });
    const res = await fetch(`${server.url}/mcp/reload`, { method: 'POST' });
    expect(res.status).toBe(200);
    const { report } = (await res.json()) as { report: { sources: { id: string; outcome: string }[] } };
    expect(report.sources).toContainEqual({ id: 'mcp:invoices', kind: 'mcp', outcome: 'ingested' });
    expect((await store.getTool('invoices/delete_invoice'))?.available).toBe(false);

    writeConfig({ invoices: { ...invoices('lookup_invoice'), env: { X: '${MISSING_VAR}' } } });
    const broken = await fetch(`${server.url}/mcp/reload`, { method: 'POST' });
    expect(broken.status).toBe(400);
    const body = (await broken.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_mcp_config');
    expect(body.error.message).toContain('MISSING_VAR');
    expect((await store.getSpecialist('invoices'))?.available).toBe(true);
    expect(((await get('/mcp/config')).body.servers as unknown[]).length).toBe(1);
  });
});
