/**
 * session/load and session/list across an agent restart, launched as an editor launches Parley:
 * `node bin/parley.js acp` (a bridge to the background service, docs/service.md) in a temporary project
 * folder with a temporary data dir, driven by the ACP SDK's own client. The service is stopped (`parley
 * stop`, or kill -9) between two editor runs; the model is a scripted one outside every process, so its
 * request log spans the restart. The caller case runs in-process: two callers on one store.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { methods } from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../../../../src/scripted-model/index.ts';
import { createAcpAgent } from '../../../../src/protocols/acp/index.ts';
import { openKv, type Kv } from '../../../../src/store/kv.ts';
import { createLmdbAcpSessionStore } from '../../../../src/store/acp-sessions/lmdb.ts';
import { createLmdbThreadStore } from '../../../../src/store/threads/lmdb.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../../support/build.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { connectOverStdio, messageText, recordingClient, updatesOf } from '../../../support/protocols/acp-client.ts';

const BIN = fileURLToPath(new URL('../../../../bin/parley.js', import.meta.url));
const EMPTY_MCP = fileURLToPath(new URL('../../../fixtures/mcp-empty.json', import.meta.url));

let scripted: ScriptedModel;
const temps: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
const servicePids = new Set<number>();
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

beforeAll(async () => {
  ensureBuilt();
  scripted = await startScriptedModel();
}, BUILD_TIMEOUT_MS);
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
afterAll(async () => {
  await scripted?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function editorEnv(dataDir: string): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_'),
    ),
  ) as Record<string, string>;
  return {
    ...env,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_MCP_CONFIG: EMPTY_MCP,
    PARLEY_LOG_LEVEL: 'warn',
    PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
    PARLEY_MODEL_API_KEY: 'test',
    PARLEY_MODEL: 'scripted',
  };
}

const servicePid = (dataDir: string) =>
  (JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as { pid: number }).pid;

async function run(args: string[], env: Record<string, string>): Promise<number | null> {
  return (await runWithOutput(args, env)).code;
}

function runWithOutput(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.resume();
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

/** An editor launching `node bin/parley.js acp` in `project`, initialized through the ACP SDK's ClientApp. */
async function editor(project: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'acp'], { cwd: project, env, stdio: 'pipe' });
  children.push(child);
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const rc = recordingClient();
  const { ctx, finish } = await connectOverStdio(rc.app, child);
  const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  return {
    ctx,
    rc,
    init,
    close: async () => {
      finish();
      child.stdin.end();
      return exited;
    },
  };
}

describe('ACP session/load after the agent restarts', () => {
  for (const how of ['parley stop', 'kill -9'] as const) {
    it(`replays the first turn and carries it into the next prompt (service ended by ${how})`, async () => {
      const dataDir = temp('parley-acp-load-data-');
      const project = realpathSync(temp('parley-acp-load-proj-'));
      const env = editorEnv(dataDir);
      const word = how === 'kill -9' ? 'OSPREY31' : 'HERON77';
      const tag = how === 'kill -9' ? 'osprey-check' : 'heron-check';

      const first = await editor(project, env);
      expect(first.init.agentCapabilities?.loadSession).toBe(true);
      expect(first.init.agentCapabilities?.sessionCapabilities?.list).toEqual({});
      const started = await first.ctx.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
      const sessionId = started.sessionId;
      await first.ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'orchestrate' });
      const reply = await first.ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: `[[steps:1]] Remember the codeword ${word} for the analysis report` }],
      });
      expect(reply.stopReason).toBe('end_turn');
      const firstAnswer = messageText(first.rc, sessionId);
      expect(firstAnswer.length).toBeGreaterThan(0);
      expect(await first.close()).toBe(0);
      const pid = servicePid(dataDir);
      servicePids.add(pid);
      if (how === 'parley stop') expect(await run(['stop'], env)).toBe(0);
      else {
        process.kill(pid, 'SIGKILL');
        // The record the killed service left is seen for what it is (its pid may linger as a zombie).
        const status = await runWithOutput(['status'], env);
        expect(status.code).toBe(3);
        expect(status.out).toContain(`stale record of pid ${pid} removed`);
      }

      const second = await editor(project, env);
      expect(servicePid(dataDir)).not.toBe(pid);
      servicePids.add(servicePid(dataDir));
      const listed = await second.ctx.request(methods.agent.session.list, { cwd: project });
      expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
      expect(listed.sessions[0]!.title).toContain(word);
      const elsewhere = await second.ctx.request(methods.agent.session.list, { cwd: realpathSync(tmpdir()) });
      expect(elsewhere.sessions).toEqual([]);

      const loaded = await second.ctx.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('orchestrate');
      const users = updatesOf(second.rc, sessionId, 'user_message_chunk');
      expect(users.map((u) => (u.content.type === 'text' ? u.content.text : ''))).toEqual([
        `[[steps:1]] Remember the codeword ${word} for the analysis report`,
      ]);
      expect(messageText(second.rc, sessionId)).toBe(firstAnswer);

      const next = await second.ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: `[[steps:1]] Which codeword ${tag} did I give for the report?` }],
      });
      expect(next.stopReason).toBe('end_turn');
      const calls = scripted.requests.filter((r) => JSON.stringify(r.body).includes(tag));
      const roles = calls.map((r) => r.role);
      expect(roles).toContain('planner');
      expect(roles).toContain('specialist');
      for (const r of calls.filter((c) => c.role === 'planner' || c.role === 'specialist'))
        expect(JSON.stringify(r.body)).toContain(word);
      expect(await second.close()).toBe(0);
      expect(await run(['stop'], env)).toBe(0);
    }, 180_000);
  }
});

describe('ACP session/load: whose session it is', () => {
  let parley: TestParley;
  let kv: Kv;
  beforeAll(async () => {
    parley = await createTestParley();
    kv = openKv(':memory:');
  });
  afterAll(async () => {
    await parley?.close();
    await kv?.close();
  });

  it("another caller's session id is unknown to load and absent from list; a bad cursor is invalid params", async () => {
    const retention = { maxPerCaller: 10, maxAgeMs: 60_000, maxThreadsPerCaller: 10, maxTurnsPerThread: 10 };
    const stores = {
      sessionStore: createLmdbAcpSessionStore(kv, retention),
      threads: createLmdbThreadStore(kv, retention),
    };
    const agentOf = (id: string) => createAcpAgent({ engine: parley.engine, caller: { id }, ...stores });
    const cwd = realpathSync(tmpdir());
    const sessionId = await recordingClient().app.connectWith(agentOf('alice'), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      return (await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
    });
    await recordingClient().app.connectWith(agentOf('bob'), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const refused = await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] }).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string },
      );
      expect(refused?.code).toBe(-32002);
      expect((await ctx.request(methods.agent.session.list, {})).sessions).toEqual([]);
      const badCursor = await ctx.request(methods.agent.session.list, { cursor: 'not-a-cursor' }).then(
        () => undefined,
        (e: unknown) => e as { code: number },
      );
      expect(badCursor?.code).toBe(-32602);
    });
    await recordingClient().app.connectWith(agentOf('alice'), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      expect((await ctx.request(methods.agent.session.list, {})).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
      const loaded = await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('auto');
    });
  });
  it('session/resume reopens a stored session without replaying it; the model still gets the earlier turn; session_info_update after a turn; another caller cannot resume it', async () => {
    const retention = { maxPerCaller: 10, maxAgeMs: 60_000, maxThreadsPerCaller: 10, maxTurnsPerThread: 10 };
    const stores = {
      sessionStore: createLmdbAcpSessionStore(kv, retention),
      threads: createLmdbThreadStore(kv, retention),
    };
    const agentOf = (id: string) => createAcpAgent({ engine: parley.engine, caller: { id }, ...stores });
    const cwd = realpathSync(tmpdir());
    const first = recordingClient();
    const sessionId = await first.app.connectWith(agentOf('carol'), async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ resume: {}, close: {}, list: {} });
      const id = (await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
      await ctx.request(methods.agent.session.prompt, {
        sessionId: id,
        prompt: [{ type: 'text', text: 'remember the word zebrafish [[route:direct]]' }],
      });
      return id;
    });
    const [info] = updatesOf(first, sessionId, 'session_info_update');
    expect(info?.title).toBe('remember the word zebrafish [[route:direct]]');
    expect(Date.parse(info!.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);

    const second = recordingClient();
    await second.app.connectWith(agentOf('carol'), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const resumed = await ctx.request(methods.agent.session.resume, { sessionId, cwd });
      expect(resumed.modes?.currentModeId).toBe('auto');
      // Nothing of the conversation is replayed (session/load would send it).
      expect(updatesOf(second, sessionId, 'user_message_chunk')).toEqual([]);
      expect(updatesOf(second, sessionId, 'agent_message_chunk')).toEqual([]);
      const before = parley.scripted.requests.length;
      await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'which word did I ask you to remember? [[route:direct]]' }],
      });
      const asked = parley.scripted.requests.slice(before).map((r) => JSON.stringify(r.body));
      expect(asked.some((body) => body.includes('zebrafish'))).toBe(true);
      await ctx.request(methods.agent.session.close, { sessionId });
      const closed = await ctx
        .request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'still there?' }] })
        .then(
          () => undefined,
          (e: unknown) => e as { code: number },
        );
      expect(closed?.code).toBe(-32002);
    });

    await recordingClient().app.connectWith(agentOf('dave'), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const refused = await ctx.request(methods.agent.session.resume, { sessionId, cwd }).then(
        () => undefined,
        (e: unknown) => e as { code: number },
      );
      expect(refused?.code).toBe(-32002);
      const relative = await ctx.request(methods.agent.session.resume, { sessionId, cwd: 'relative/dir' }).then(
        () => undefined,
        (e: unknown) => e as { code: number },
      );
      expect(relative?.code).toBe(-32602);
    });
  });
});
