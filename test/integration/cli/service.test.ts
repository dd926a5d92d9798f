/**
 * One Parley service per data dir (docs/service.md), launched as editors launch Parley: `node
 * bin/parley.js acp|mcp` with cwd = a temporary project folder and the env of the docs' snippets,
 * driven by the ACP and MCP SDKs' own clients. Every service these tests start is stopped by them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { methods, type ClientContext } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { isAlive } from '../../../src/service/files.ts';
import { connectOverStdio, messageText, recordingClient } from '../../support/protocols/acp-client.ts';

const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EMPTY_MCP = fileURLToPath(new URL('../../fixtures/mcp-empty.json', import.meta.url));

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
/** Service pids to kill if a test fails before stopping them itself. */
const servicePids = new Set<number>();
const children: { kill(signal?: NodeJS.Signals): boolean; exitCode: number | null }[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of servicePids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  servicePids.clear();
});
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The environment minus every model/Parley setting, plus the settings an editor snippet sets. */
function editorEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_'),
    ),
  ) as Record<string, string>;
  return { ...env, PARLEY_DATA_DIR: dataDir, PARLEY_MCP_CONFIG: EMPTY_MCP, PARLEY_LOG_LEVEL: 'warn', ...extra };
}

interface Record_ {
  pid: number;
  url: string;
  port: number;
}
const serviceRecord = (dataDir: string): Record_ =>
  JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as Record_;
const token = (dataDir: string) => readFileSync(join(dataDir, 'service.token'), 'utf8').trim();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(probe: () => T | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `parley <args>` to completion: exit code and output. */
function parley(args: string[], env: Record<string, string>, cwd = ROOT) {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, out: () => out, err: () => err };
}

/** `parley serve` as `npm start` runs it, on a free port; resolves once its service.json names it. */
async function serve(dataDir: string, extra: Record<string, string> = {}) {
  const p = parley(['serve'], editorEnv(dataDir, { PARLEY_PORT: '0', ...extra }));
  const record = await until(
    () =>
      existsSync(join(dataDir, 'service.json')) && serviceRecord(dataDir).pid === p.child.pid && serviceRecord(dataDir),
    'parley serve to write service.json',
  );
  return { ...p, record };
}

interface Editor {
  child: ChildProcessWithoutNullStreams;
  ctx: ClientContext;
  rc: ReturnType<typeof recordingClient>;
  exited: Promise<number | null>;
  stderr: () => string;
  close(): Promise<number | null>;
}

/** An editor launching `node bin/parley.js acp` in `project`, initialized through the ACP SDK's ClientApp. */
async function editor(
  project: string,
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): Promise<Editor> {
  // detached: the bridge leads its own process group, as an editor's agent process tree does.
  const child = spawn(process.execPath, [BIN, 'acp'], {
    cwd: project,
    env,
    stdio: 'pipe',
    detached: options.detached === true,
  });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const rc = recordingClient();
  const { ctx, finish } = await connectOverStdio(rc.app, child);
  const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  expect(init.agentInfo?.name).toBe('parley');
  return {
    child,
    ctx,
    rc,
    exited,
    stderr: () => err,
    close: async () => {
      finish();
      child.stdin.end();
      return exited;
    },
  };
}

async function serviceStatus(url: string, bearer: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL('/api/service', url), { headers: { Authorization: `Bearer ${bearer}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('one Parley service per data dir', () => {
  it('two editors in two project folders and parley run share the running `parley serve`: one service, one knowledge graph', async () => {
    const dataDir = temp('parley-svc-data-');
    const server = await serve(dataDir);
    const env = editorEnv(dataDir);
    const [a, b] = await Promise.all([editor(temp('parley-proj-a-'), env), editor(temp('parley-proj-b-'), env)]);

    // Both bridges are clients of the one service, which started no other.
    const during = await serviceStatus(server.record.url, token(dataDir));
    expect(during.body).toMatchObject({ pid: server.child.pid, port: server.record.port });
    expect(during.body.clients).toBeGreaterThanOrEqual(2);
    expect(serviceRecord(dataDir).pid).toBe(server.child.pid);

    // Both prompt at once; neither fails on the database lock.
    const sessions = await Promise.all([a.ctx.buildSession(ROOT).start(), b.ctx.buildSession(ROOT).start()]);
    const replies = await Promise.all([
      sessions[0].prompt('Alpha window asks about caching strategies'),
      sessions[1].prompt('Beta window asks about rate limiting'),
    ]);
    expect(replies.map((r) => r.stopReason)).toEqual(['end_turn', 'end_turn']);
    expect(messageText(a.rc, sessions[0].sessionId)).toContain('Alpha window asks about caching strategies');
    expect(messageText(b.rc, sessions[1].sessionId)).toContain('Beta window asks about rate limiting');

    // parley run goes through the same service too.
    const run = parley(['run', 'Gamma from the terminal about queues'], editorEnv(dataDir), temp('parley-proj-c-'));
    expect(await run.exit).toBe(0);
    expect(run.err()).toContain(`pid ${server.child.pid}`);
    expect(run.out()).toContain('Gamma from the terminal about queues');

    // parley ingest too: the service re-ingests (it holds the graph's lock) and its report is printed. This
    // env's MCP config is empty, so the shipped specialists name servers it lacks: the report says so, exit 1.
    const ingest = parley(['ingest'], editorEnv(dataDir), temp('parley-proj-d-'));
    expect(await ingest.exit).toBe(1);
    expect(ingest.err()).toContain(`pid ${server.child.pid}`);
    const report = JSON.parse(ingest.out()) as {
      sources: unknown[];
      unavailable: unknown[];
      unknownServers: unknown[];
    };
    expect(report.sources.length).toBeGreaterThan(0);
    expect(report.unavailable).toEqual([]);
    expect(report.unknownServers).toContainEqual(
      expect.objectContaining({ specialist: 'architect', server: 'filesystem' }),
    );
    expect(ingest.err()).not.toContain('lock');

    // Every run was recorded in the one knowledge graph.
    const runs = (await (
      await fetch(new URL('/api/runs', server.record.url), { headers: { Authorization: `Bearer ${token(dataDir)}` } })
    ).json()) as unknown;
    const recorded = JSON.stringify(runs);
    for (const q of ['Alpha window', 'Beta window', 'Gamma from the terminal']) expect(recorded).toContain(q);

    expect(await Promise.all([a.close(), b.close()])).toEqual([0, 0]);
    expect(alive(server.child.pid!)).toBe(true);

    const stop = parley(['stop'], editorEnv(dataDir));
    expect(await stop.exit).toBe(0);
    expect(stop.out()).toContain(`pid ${server.child.pid}`);
    expect(await server.exit).toBe(0);
    expect(existsSync(join(dataDir, 'service.json'))).toBe(false);
  }, 180_000);

  it('a bridge starts the service when none runs (a free port, said in its log), a killed service is restarted by the next bridge, and an idle one exits', async () => {
    const dataDir = temp('parley-svc-data-');
    const env = editorEnv(dataDir, { PARLEY_SERVICE_IDLE_EXIT_MS: '1500', PARLEY_LOG_LEVEL: 'info' });
    const connect = async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: temp('parley-proj-'),
        env,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'service-test', version: '1.0.0' });
      await client.connect(transport);
      const record = serviceRecord(dataDir);
      servicePids.add(record.pid);
      return { client, record, transport, stderr: () => stderr };
    };

    const first = await connect();
    expect(first.record.pid).not.toBe(first.transport.pid);
    expect(first.record.port).not.toBe(8787);
    // The editor's log shows which port the service took; so does the service's own log.
    expect(first.stderr()).toContain(
      `started the Parley service for ${dataDir} (pid ${first.record.pid}, ${first.record.url})`,
    );
    expect(readFileSync(join(dataDir, 'service.log'), 'utf8')).toContain(`took the free port ${first.record.port}`);
    const { tools } = await first.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['ask', 'approve']));
    const asked = await first.client.callTool({ name: 'ask', arguments: { query: 'Through the bridge' } });
    expect(JSON.stringify(asked.content)).toContain('Through the bridge');

    // kill -9 leaves a stale service.json behind: the next bridge ignores it and starts a new service.
    process.kill(first.record.pid, 'SIGKILL');
    await until(() => !alive(first.record.pid), 'the killed service to end');
    await first.client.close();
    const second = await connect();
    expect(second.record.pid).not.toBe(first.record.pid);
    expect(second.stderr()).toContain(
      `the service recorded in service.json (pid ${first.record.pid}, ${first.record.url}) no longer answers`,
    );
    expect((await second.client.listTools()).tools.length).toBeGreaterThan(0);

    const status = parley(['status', '--json'], env);
    expect(await status.exit).toBe(0);
    expect(JSON.parse(status.out())).toMatchObject({
      running: true,
      pid: second.record.pid,
      idleExitMs: 1500,
      degradedRuns: [],
    });

    // With its last client gone the service waits PARLEY_SERVICE_IDLE_EXIT_MS, then exits and removes service.json.
    await second.client.close();
    await until(() => !alive(second.record.pid), 'the idle service to exit', 30_000);
    expect(existsSync(join(dataDir, 'service.json'))).toBe(false);
    const after = parley(['status'], env);
    expect(await after.exit).toBe(3);
    expect(after.out()).toContain('No Parley service runs');
  }, 180_000);

  it('the token file is the user’s only (0600); a wrong token is refused, the right one is the local caller even with API keys on', async () => {
    const dataDir = temp('parley-svc-data-');
    const server = await serve(dataDir, { PARLEY_API_KEYS: 'team-key' });
    expect(statSync(join(dataDir, 'service.token')).mode & 0o777).toBe(0o600);

    const wrong = await serviceStatus(server.record.url, 'not-the-token');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: { code: 'unauthorized' } });
    // An API key is a caller, not this machine's user: the service endpoint is the token's only.
    expect((await serviceStatus(server.record.url, 'team-key')).status).toBe(401);
    expect(
      (await fetch(new URL('/api/runs', server.record.url), { headers: { Authorization: 'Bearer nope' } })).status,
    ).toBe(401);
    expect((await serviceStatus(server.record.url, token(dataDir))).body).toMatchObject({ pid: server.child.pid });

    // The bridge authenticates with the token although the editor's env has no API key.
    const e = await editor(temp('parley-proj-'), editorEnv(dataDir));
    const session = await e.ctx.buildSession(ROOT).start();
    expect((await session.prompt('Keyed service, local editor')).stopReason).toBe('end_turn');
    expect(await e.close()).toBe(0);

    const stop = parley(['stop'], editorEnv(dataDir));
    expect(await stop.exit).toBe(0);
    expect(await server.exit).toBe(0);
  }, 120_000);
  it("an editor through the bridge works on its project folder on disk: the bridge's session is local", async () => {
    // The shipped MCP config: specialists bound to filesystem/* get the session's project tools instead.
    const dataDir = temp('parley-svc-data-');
    const server = await serve(dataDir, {
      PARLEY_MCP_CONFIG: join(ROOT, 'mcp_config.json'),
      HOME: temp('parley-user-'),
    });
    const project = realpathSync(temp('parley-proj-'));
    writeFileSync(join(project, 'notes.txt'), 'notes kept in the project folder\n');
    const e = await editor(project, editorEnv(dataDir));
    const session = await e.ctx.buildSession(project).start();
    // The editor offers no fs: the file is read on disk, inside the project, without asking.
    const reply = await session.prompt(
      'Read the TypeScript Node.js code notes of this project [[route:plan]] [[steps:1]] [[tool:project/read_file {"path":"notes.txt"}]]',
    );
    expect(reply.stopReason).toBe('end_turn');
    expect(e.rc.permissions).toHaveLength(0);
    expect(messageText(e.rc, session.sessionId)).toContain('notes kept in the project folder');
    expect(await e.close()).toBe(0);

    const stop = parley(['stop'], editorEnv(dataDir));
    expect(await stop.exit).toBe(0);
    expect(await server.exit).toBe(0);
  }, 120_000);

  it('`parley stop` with an idle and a busy ACP bridge attached ends within its grace period: the prompt in flight ends cancelled, both bridges exit', async () => {
    const dataDir = temp('parley-svc-data-');
    const env = editorEnv(dataDir, { PARLEY_SHUTDOWN_TIMEOUT_MS: '4000', PARLEY_SCRIPTED_LATENCY_MS: '1500' });
    const idle = await editor(temp('parley-proj-idle-'), env);
    const busy = await editor(temp('parley-proj-busy-'), env);
    const servicePid = serviceRecord(dataDir).pid;
    servicePids.add(servicePid);
    const session = await busy.ctx.buildSession(ROOT).start();
    const reply = session.prompt('Compare caching strategies for a busy service [[steps:3]]').then(
      (r) => r.stopReason,
      (err: unknown) => `error: ${String(err)}`,
    );
    await until(() => busy.rc.notifications.length > 0, 'the busy prompt to start');
    const t0 = Date.now();
    const stop = parley(['stop'], editorEnv(dataDir));
    expect(await stop.exit, stop.err()).toBe(0);
    const stopMs = Date.now() - t0;
    console.log(`service.test.ts: parley stop with two ACP bridges attached took ${stopMs} ms (grace 4000 ms)`);
    expect(stopMs).toBeLessThan(4000 + 3000);
    // A zombie (the container's init may not reap it) is not alive.
    expect(isAlive(servicePid)).toBe(false);
    expect(await reply).toBe('cancelled');
    // The bridges are told (a clean close) and exit; the editors see them go.
    expect(await Promise.race([idle.exited, new Promise((r) => setTimeout(() => r('still running'), 5000))])).toBe(1);
    expect(await Promise.race([busy.exited, new Promise((r) => setTimeout(() => r('still running'), 5000))])).toBe(1);
    expect(idle.stderr()).toContain('went away');
  }, 120_000);

  it("killing one editor's agent process group (kill -9) leaves the shared service up; a service killed under a prompt fails it at once", async () => {
    const dataDir = temp('parley-svc-data-');
    const env = editorEnv(dataDir, { PARLEY_SCRIPTED_LATENCY_MS: '300' });
    // Window A's bridge starts the service; its client kills A's whole process group.
    const a = await editor(temp('parley-proj-a-'), env, { detached: true });
    const servicePid = serviceRecord(dataDir).pid;
    servicePids.add(servicePid);
    const b = await editor(temp('parley-proj-b-'), env);
    const session = await b.ctx.buildSession(ROOT).start();
    const asked = Date.now();
    const reply = session.prompt('Beta window asks about rate limiting [[steps:2]]');
    process.kill(-a.child.pid!, 'SIGKILL');
    await a.exited;
    expect((await reply).stopReason).toBe('end_turn');
    expect(Date.now() - asked).toBeLessThan(10_000);
    expect(isAlive(servicePid)).toBe(true);

    // The service itself dies under B's next prompt: B's bridge answers it with an error at once.
    const slow = session.prompt('Beta window asks about quotas [[steps:3]]').then(
      () => 'answered',
      (err: unknown) => String(err),
    );
    await new Promise((r) => setTimeout(r, 300));
    const killedAt = Date.now();
    process.kill(servicePid, 'SIGKILL');
    const outcome = await slow;
    const failMs = Date.now() - killedAt;
    console.log(`service.test.ts: a prompt in flight when its service was killed failed after ${failMs} ms`);
    expect(outcome).toMatch(/went away/);
    expect(failMs).toBeLessThan(10_000);
    expect(await b.exited).toBe(1);
  }, 120_000);
});
