/**
 * Every setup in docs/editors.md, launched the way its client launches it: the snippet is read out of
 * the doc (so the doc and this test cannot drift), its command and args are spawned exactly as written,
 * with the snippet's env, in a fresh temporary project folder, with `parley` on PATH as `npm link`
 * puts it there and an empty temporary HOME (so the default Parley home is used and the real one is
 * never touched). The official ACP or MCP client SDK completes `initialize`; the shipped roster (12
 * specialists) must be there, and nothing may be written into the project folder.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { methods } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { connectOverStdio, recordingClient } from '../../support/protocols/acp-client.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/editors.md'), 'utf8');
/** The shipped roster: ten specialist files and two MCP servers (filesystem, memory). */
const SHIPPED_SPECIALISTS = 12;

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The JSON block after `<!-- snippet: <name> -->` in docs/editors.md. */
function snippet(name: string): unknown {
  const match = new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(DOC);
  if (!match) throw new Error(`docs/editors.md has no snippet "${name}"`);
  return JSON.parse(match[1]!);
}

/** Each client, the protocol it speaks and where its config keeps the launch command. */
const CLIENTS: { name: string; protocol: 'acp' | 'mcp'; launch: (json: never) => Launch }[] = [
  { name: 'zed', protocol: 'acp', launch: (j: { agent_servers: Record<string, Launch> }) => j.agent_servers.Parley! },
  {
    name: 'jetbrains',
    protocol: 'acp',
    launch: (j: { agent_servers: Record<string, Launch> }) => j.agent_servers.Parley!,
  },
  { name: 'vscode', protocol: 'mcp', launch: (j: { servers: Record<string, Launch> }) => j.servers.parley! },
  {
    name: 'claude-desktop',
    protocol: 'mcp',
    launch: (j: { mcpServers: Record<string, Launch> }) => j.mcpServers.parley!,
  },
  { name: 'cursor', protocol: 'mcp', launch: (j: { mcpServers: Record<string, Launch> }) => j.mcpServers.parley! },
];

const temps: string[] = [];
let binDir: string;
beforeAll(() => {
  ensureBuilt();
  // What `npm link` does: a `parley` on PATH that is a symlink to bin/parley.js.
  binDir = mkdtempSync(join(tmpdir(), 'parley-bin-'));
  temps.push(binDir);
  symlinkSync(join(ROOT, 'bin/parley.js'), join(binDir, 'parley'));
}, BUILD_TIMEOUT_MS);
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A fresh project folder and user home, and the environment an editor passes: the user's, with `parley` on PATH. */
function editorSetting(launch: Launch) {
  const project = mkdtempSync(join(tmpdir(), 'parley-project-'));
  const home = mkdtempSync(join(tmpdir(), 'parley-user-'));
  temps.push(project, home);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) =>
        v !== undefined &&
        !k.startsWith('PARLEY_') &&
        !k.startsWith('OPENAI_') &&
        !k.startsWith('OTEL_') &&
        !k.startsWith('XDG_'),
    ),
  ) as Record<string, string>;
  const env: Record<string, string> = {
    ...inherited,
    HOME: home,
    PATH: [binDir, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    ...(launch.env ?? {}),
  };
  // The default home on this platform under that HOME (Linux: ~/.config/parley).
  const parleyHome =
    process.platform === 'darwin'
      ? join(home, 'Library', 'Application Support', 'Parley')
      : join(home, '.config', 'parley');
  return { project, env, parleyHome };
}

/**
 * What Parley said: the bridge's stderr and the log of the service it started in the background
 * (docs/service.md: `parley acp` / `parley mcp` are bridges to one service per data dir).
 */
function said(stderr: string, parleyHome: string): string {
  const log = join(parleyHome, 'data', 'service.log');
  return stderr + (existsSync(log) ? readFileSync(log, 'utf8') : '');
}

/** The service a bridge started outlives it (until idle): stop it the way a user would. */
function stopService(env: Record<string, string>, cwd: string): void {
  const stopped = spawnSync('parley', ['stop'], { env, cwd, encoding: 'utf8', timeout: 30_000 });
  expect(stopped.status, stopped.stderr).toBe(0);
}

async function untilLine(read: () => string, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(read());
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in stderr:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('docs/editors.md', () => {
  it('has a snippet for every client, each launching `parley acp` or `parley mcp` with no path to a project file', () => {
    for (const c of CLIENTS) {
      const launch = c.launch(snippet(c.name) as never);
      expect(launch, c.name).toMatchObject({ command: 'parley', args: [c.protocol] });
    }
  });

  for (const c of CLIENTS.filter((x) => x.protocol === 'acp')) {
    it(`${c.name}: the snippet starts Parley from a fresh project folder and an ACP client completes initialize`, async () => {
      const launch = c.launch(snippet(c.name) as never);
      const { project, env, parleyHome } = editorSetting(launch);
      const child = spawn(launch.command, launch.args, {
        cwd: project,
        env,
        stdio: 'pipe',
      }) as ChildProcessWithoutNullStreams;
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const rc = recordingClient();
      const ready = connectOverStdio(rc.app, child);
      let finish = () => {};
      try {
        const { ctx, finish: done } = await ready;
        finish = done;
        const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        expect(init.agentInfo?.name).toBe('parley');
        const session = await ctx.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
        expect(session.sessionId).toBeTruthy();
        const roster = await untilLine(() => said(stderr, parleyHome), /(\d+) specialists available/);
        expect(Number(roster[1])).toBe(SHIPPED_SPECIALISTS);
        // The home is the user's default one, its data dir holds the graph, and the project is left alone.
        expect(said(stderr, parleyHome)).toContain(`Parley home ${parleyHome} (default`);
        expect(readdirSync(join(parleyHome, 'data')).length).toBeGreaterThan(0);
        expect(readdirSync(project)).toEqual([]);
      } finally {
        finish();
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
        stopService(env, project);
      }
    }, 90_000);
  }

  for (const c of CLIENTS.filter((x) => x.protocol === 'mcp')) {
    it(`${c.name}: the snippet starts Parley from a fresh project folder and an MCP client lists every specialist`, async () => {
      const launch = c.launch(snippet(c.name) as never);
      const { project, env, parleyHome } = editorSetting(launch);
      const transport = new StdioClientTransport({
        command: launch.command,
        args: launch.args,
        cwd: project,
        env,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
      const client = new Client({ name: `${c.name}-test`, version: '1.0.0' });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()?.name).toBe('parley');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['ask', 'list_specialists', 'approve']));
        const listed = await client.callTool({ name: 'list_specialists', arguments: { available: true } });
        expect(listed.isError).toBeFalsy();
        const specialists = (listed.structuredContent as { specialists: unknown[] } | undefined)?.specialists;
        expect(specialists).toHaveLength(SHIPPED_SPECIALISTS);
        expect(said(stderr, parleyHome)).toContain(`Parley home ${parleyHome} (default`);
        expect(readdirSync(project)).toEqual([]);
      } finally {
        await client.close();
        stopService(env, project);
      }
    }, 90_000);
  }
});
