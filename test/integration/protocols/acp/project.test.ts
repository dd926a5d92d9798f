/**
 * ACP on the user's project, launched as an editor launches `parley acp`: a separate process started in
 * a temporary project folder (cwd), driven by the SDK's ClientApp over stdio. One editor offers `fs` and
 * `terminal` (test/support/protocols/acp-editor.ts: unsaved buffers, real child processes); another offers
 * neither, so the session's files are reached on disk, scoped to the folder.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  methods,
  type ClientCapabilities,
  type ClientContext,
  type SessionUpdate,
  type ToolCallContent,
} from '@agentclientprotocol/sdk';
import {
  connectOverStdio,
  messageText,
  select,
  updatesOf,
  type RecordingClient,
} from '../../../support/protocols/acp-client.ts';
import { editorClient, type EditorClient } from '../../../support/protocols/acp-editor.ts';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const tsx = import.meta.resolve('tsx');
const agentScript = join(root, 'test/fixtures/acp/stdio-agent.ts');
const mcpFixture = join(root, 'test/fixtures/tools/stdio-server.ts');

interface Editor {
  child: ChildProcessWithoutNullStreams;
  /** Everything the agent wrote to stdout (the raw JSON-RPC lines). */
  stdout: () => string;
  ctx: ClientContext;
  close(): Promise<void>;
}

/** Starts `parley acp` (the ACP test Parley on stdio) in `cwd` and connects `rc` with `capabilities`. */
async function launch(cwd: string, rc: RecordingClient, capabilities: ClientCapabilities): Promise<Editor> {
  const child = spawn(process.execPath, ['--import', tsx, agentScript], {
    cwd,
    stdio: 'pipe',
    env: { ...process.env, ACP_TEST_CODER: '1', ACP_TEST_WORKSPACE: workspace },
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { ctx, finish } = await connectOverStdio(rc.app, child);
  const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities });
  expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
  return {
    child,
    ctx,
    stdout: () => stdout,
    close: async () => {
      finish();
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      if (child.exitCode !== 0) console.error(stderr);
    },
  };
}

/** A prompt that plans one coder step whose model calls `tool` with `args`. */
const toolPrompt = (tool: string, args: Record<string, unknown>) =>
  `[[route:plan]] [[steps:1]] coder edits the project code [[tool:${tool} ${JSON.stringify(args)}]]`;

const contentOf = (rc: RecordingClient, sessionId: string): ToolCallContent[] =>
  updatesOf(rc, sessionId, 'tool_call_update').flatMap((u) => u.content ?? []);

let project: string;
let bare: string;
/** Parley's own workspace: the folder its configured filesystem MCP server serves. */
let workspace: string;
let outside: string;
let editor: Editor;
let plain: Editor;
let ed: EditorClient;
let pl: EditorClient;

beforeAll(async () => {
  // realpath: macOS' /var → /private/var would otherwise make every path look outside.
  project = realpathSync(mkdtempSync(join(tmpdir(), 'parley-acp-project-')));
  bare = realpathSync(mkdtempSync(join(tmpdir(), 'parley-acp-bare-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'parley-acp-outside-')));
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'parley-acp-workspace-')));
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src/app.txt'), 'version 1\n');
  writeFileSync(join(bare, 'notes.txt'), 'on disk\n');
  writeFileSync(join(outside, 'secret.txt'), 'outside the project\n');
  ed = editorClient();
  pl = editorClient();
  [editor, plain] = await Promise.all([
    launch(project, ed, { fs: { readTextFile: true, writeTextFile: true }, terminal: true }),
    launch(bare, pl, {}),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([editor?.close(), plain?.close()]);
  for (const dir of [project, bare, outside]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('ACP on the project, through the editor (fs + terminal)', () => {
  it('a file edit goes through fs/write_text_file after a permission that shows the diff; the file changes', async () => {
    const session = await editor.ctx.buildSession(project).start();
    ed.answer = () => select('allow_once');
    const response = await session.prompt(
      toolPrompt('project/write_file', { path: 'src/app.txt', content: 'version 2\n' }),
    );
    expect(response.stopReason).toBe('end_turn');

    const asked = ed.permissions.find((p) => p.sessionId === session.sessionId)!;
    expect(asked.toolCall.kind).toBe('edit');
    expect(asked.toolCall.content).toEqual([
      { type: 'diff', path: join(project, 'src/app.txt'), oldText: 'version 1\n', newText: 'version 2\n' },
    ]);
    expect(asked.toolCall.locations).toEqual([{ path: join(project, 'src/app.txt') }]);
    // Read for the diff through the editor, written through the editor: never behind its back.
    expect(ed.reads).toContain(join(project, 'src/app.txt'));
    expect(ed.writes).toEqual([{ path: join(project, 'src/app.txt'), content: 'version 2\n' }]);
    expect(readFileSync(join(project, 'src/app.txt'), 'utf8')).toBe('version 2\n');
    const finished = updatesOf(ed, session.sessionId, 'tool_call_update').find((u) => u.status === 'completed')!;
    expect(finished.content?.[0]).toMatchObject({ type: 'diff', newText: 'version 2\n' });
    // The client answered: its question is never withdrawn afterwards.
    expect(cancelRequests(editor)).toEqual([]);
  });

  it('rejected, the edit is not written: no fs/write_text_file, the file is unchanged', async () => {
    const session = await editor.ctx.buildSession(project).start();
    const writesBefore = ed.writes.length;
    ed.answer = () => select('reject_once');
    const response = await session.prompt(
      toolPrompt('project/write_file', { path: 'src/app.txt', content: 'rejected\n' }),
    );
    expect(response.stopReason).toBe('end_turn');
    expect(ed.permissions.filter((p) => p.sessionId === session.sessionId)).toHaveLength(1);
    expect(ed.writes).toHaveLength(writesBefore);
    expect(readFileSync(join(project, 'src/app.txt'), 'utf8')).toBe('version 2\n');
    expect(updatesOf(ed, session.sessionId, 'tool_call_update').some((u) => u.status === 'failed')).toBe(true);
  });

  it('reading a file sees the unsaved buffer, without asking (inside the project, read-only)', async () => {
    const session = await editor.ctx.buildSession(project).start();
    const path = join(project, 'src/app.txt');
    ed.buffers.set(path, 'unsaved buffer text 7f3a\n');
    const asked = ed.permissions.length;
    const response = await session.prompt(toolPrompt('project/read_file', { path: 'src/app.txt' }));
    expect(response.stopReason).toBe('end_turn');
    expect(ed.permissions).toHaveLength(asked);
    expect(messageText(ed, session.sessionId)).toContain('unsaved buffer text 7f3a');
    ed.buffers.delete(path);
  });

  it('a command runs in the editor terminal in the project folder, shown as terminal content, then released', async () => {
    const session = await editor.ctx.buildSession(project).start();
    ed.answer = () => select('allow_once');
    const response = await session.prompt(
      toolPrompt('project/run_command', {
        command: process.execPath,
        args: ['-e', 'console.log("pwd=" + process.cwd())'],
      }),
    );
    expect(response.stopReason).toBe('end_turn');
    const asked = ed.permissions.filter((p) => p.sessionId === session.sessionId);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall.kind).toBe('execute');
    expect(ed.terminals.at(-1)).toMatchObject({
      command: process.execPath,
      cwd: project,
      sessionId: session.sessionId,
    });
    expect(ed.calls.slice(-4)).toEqual([
      'terminal/create',
      'terminal/wait_for_exit',
      'terminal/output',
      'terminal/release',
    ]);
    const terminals = contentOf(ed, session.sessionId).filter((c) => c.type === 'terminal');
    expect(terminals.length).toBeGreaterThan(0);
    const done = updatesOf(ed, session.sessionId, 'tool_call_update').find((u) => u.status === 'completed')!;
    expect(done.content?.some((c) => c.type === 'terminal')).toBe(true);
    expect(messageText(ed, session.sessionId)).toContain(`pwd=${project}`);
  });

  it('a path outside the project folder is asked about even for a read; rejected, nothing is read', async () => {
    const session = await editor.ctx.buildSession(project).start();
    ed.answer = () => select('reject_once');
    const secret = join(outside, 'secret.txt');
    const response = await session.prompt(toolPrompt('project/read_file', { path: secret }));
    expect(response.stopReason).toBe('end_turn');
    const asked = ed.permissions.filter((p) => p.sessionId === session.sessionId);
    expect(asked).toHaveLength(1);
    expect((asked[0]!._meta as { parley: { reason: string } }).parley.reason).toBe(
      `outside the project folder ${project}`,
    );
    expect(ed.reads).not.toContain(secret);
    expect(messageText(ed, session.sessionId)).not.toContain('outside the project');
  });
});

describe('ACP on the project without client fs (the folder on disk)', () => {
  it('the file tools work on the session folder on disk; a path outside needs approval', async () => {
    const session = await plain.ctx.buildSession(bare).start();
    pl.answer = () => select('allow_once');
    const read = await session.prompt(toolPrompt('project/read_file', { path: 'notes.txt' }));
    expect(read.stopReason).toBe('end_turn');
    expect(pl.permissions).toHaveLength(0);
    expect(messageText(pl, session.sessionId)).toContain('on disk');

    await session.prompt(toolPrompt('project/write_file', { path: 'out/new.txt', content: 'written by parley\n' }));
    expect(pl.permissions).toHaveLength(1);
    expect(pl.permissions[0]!.toolCall.content).toEqual([
      { type: 'diff', path: join(bare, 'out/new.txt'), oldText: null, newText: 'written by parley\n' },
    ]);
    expect(readFileSync(join(bare, 'out/new.txt'), 'utf8')).toBe('written by parley\n');
    expect(pl.calls).toEqual([]);

    pl.answer = () => select('reject_once');
    await session.prompt(toolPrompt('project/write_file', { path: join(outside, 'escape.txt'), content: 'x' }));
    expect(pl.permissions).toHaveLength(2);
    expect((pl.permissions[1]!._meta as { parley: { reason: string } }).parley.reason).toBe(
      `outside the project folder ${bare}`,
    );
    expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
  });

  it("the filesystem server's own specialist works on the project in a session, never on Parley's workspace", async () => {
    const session = await plain.ctx.buildSession(bare).start();
    pl.answer = () => select('allow_once');
    const before = pl.permissions.length;
    const asked = (tool: string, args: Record<string, unknown>) =>
      `[[route:plan]] [[steps:1]] filesystem writes the notes [[tool:${tool} ${JSON.stringify(args)}]]`;
    const wrote = await session.prompt(
      asked('project/write_file', { path: 'fs-notes.txt', content: 'in the project\n' }),
    );
    expect(wrote.stopReason).toBe('end_turn');
    expect(pl.permissions).toHaveLength(before + 1);
    expect(readFileSync(join(bare, 'fs-notes.txt'), 'utf8')).toBe('in the project\n');
    // Its filesystem/write_file is the project's (the configured server, Parley's workspace, is not
    // offered): a path in the workspace is outside the project, so the user is asked; refused, nothing is written.
    pl.answer = () => select('reject_once');
    await session.prompt(asked('filesystem/write_file', { path: join(workspace, 'fs-notes.txt'), content: 'leak\n' }));
    expect(pl.permissions).toHaveLength(before + 2);
    expect(pl.permissions.at(-1)!.toolCall.title).toBe('Tool project/write_file');
    expect((pl.permissions.at(-1)!._meta as { parley: { reason: string } }).parley.reason).toBe(
      `outside the project folder ${bare}`,
    );
    expect(existsSync(join(workspace, 'fs-notes.txt'))).toBe(false);
  });

  it('no terminal, no run_command tool: a directive naming it finds no such tool', async () => {
    const session = await plain.ctx.buildSession(bare).start();
    const response = await session.prompt(toolPrompt('project/run_command', { command: 'ls' }));
    expect(response.stopReason).toBe('end_turn');
    expect(updatesOf(pl, session.sessionId, 'tool_call')).toHaveLength(0);
  });
});

describe('ACP session MCP servers', () => {
  it('a stdio MCP server passed in session/new is started for the session, used by a specialist, stopped with it', async () => {
    const log = join(project, 'mcp-writes.jsonl');
    const session = await editor.ctx
      .buildSession(project)
      .withMcpServer({
        name: 'notes',
        command: process.execPath,
        args: ['--import', tsx, mcpFixture],
        env: [{ name: 'FIXTURE_LOG', value: log }],
      })
      .start();
    ed.answer = () => select('allow_once');
    const response = await session.prompt(toolPrompt('notes/write_note', { path: 'from-acp', content: 'hello' }));
    expect(response.stopReason).toBe('end_turn');
    const asked = ed.permissions.filter((p) => p.sessionId === session.sessionId);
    expect(asked.map((p) => p.toolCall.title)).toEqual(['Tool notes/write_note']);
    const writes = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string; pid: number });
    expect(writes.map((w) => w.path)).toEqual(['from-acp']);
    expect(isAlive(writes[0]!.pid)).toBe(true);

    await editor.ctx.request(methods.agent.session.close, { sessionId: session.sessionId });
    await waitUntil(() => !isAlive(writes[0]!.pid));
  });
});

describe('ACP slash commands and cancellation', () => {
  it('available_commands_update offers /council, /plan, /direct; "/direct …" runs that prompt in direct mode', async () => {
    const session = await editor.ctx.buildSession(project).start();
    const update = (await ed.waitFor((u) => u.sessionUpdate === 'available_commands_update')) as Extract<
      SessionUpdate,
      { sessionUpdate: 'available_commands_update' }
    >;
    expect(update.availableCommands.map((c) => c.name)).toEqual(expect.arrayContaining(['council', 'plan', 'direct']));
    const direct = await session.prompt('/direct what is a cache?');
    expect(direct.stopReason).toBe('end_turn');
    const thoughts = updatesOf(ed, session.sessionId, 'agent_thought_chunk').map((u) =>
      u.content.type === 'text' ? u.content.text : '',
    );
    expect(thoughts.join('')).toContain('Route: direct (mode "direct" requested)');
    expect(messageText(ed, session.sessionId)).toContain('what is a cache');
  });

  it('"/council" alone sets the next prompt\'s mode, once', async () => {
    const session = await editor.ctx.buildSession(project).start();
    const set = await session.prompt('/council');
    expect(set.stopReason).toBe('end_turn');
    expect(messageText(ed, session.sessionId)).toContain('council mode');
    await session.prompt('Should we adopt a monorepo?');
    const thoughts = updatesOf(ed, session.sessionId, 'agent_thought_chunk')
      .map((u) => (u.content.type === 'text' ? u.content.text : ''))
      .join('');
    expect(thoughts).toContain('Route: council (mode "council" requested');
  });

  it('a tool call waiting for permission when the turn is cancelled gets a final failed update', async () => {
    const session = await editor.ctx.buildSession(project).start();
    let answered!: () => void;
    const asked = new Promise<void>((r) => (answered = r));
    ed.answer = async () => {
      answered();
      await new Promise((r) => setTimeout(r, 60_000));
      return select('allow_once');
    };
    const pending = session.prompt(toolPrompt('project/write_file', { path: 'src/app.txt', content: 'never\n' }));
    await asked;
    await editor.ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
    const response = await pending;
    expect(response.stopReason).toBe('cancelled');
    const calls = updatesOf(ed, session.sessionId, 'tool_call');
    expect(calls).toHaveLength(1);
    const last = updatesOf(ed, session.sessionId, 'tool_call_update')
      .filter((u) => u.toolCallId === calls[0]!.toolCallId)
      .at(-1)!;
    expect(last.status).toBe('failed');
    // Unanswered, the question is withdrawn (the one $/cancel_request of this file).
    expect(cancelRequests(editor)).toHaveLength(1);
    expect(readFileSync(join(project, 'src/app.txt'), 'utf8')).toBe('version 2\n');
  });
});

/** The `$/cancel_request` notifications the agent sent. */
function cancelRequests(e: Editor): unknown[] {
  return e
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"$/cancel_request"'))
    .map((line) => JSON.parse(line) as unknown);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
