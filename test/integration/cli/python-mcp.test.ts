/**
 * The Python MCP client (the `mcp` SDK, test/python/mcp_client.py) against Parley as shipped (the repo's
 * roster and mcp_config.json, the built-in scripted model), over both transports and both protocol eras:
 *
 * - stdio: `parley mcp` launched the way a Python host launches a server, a StdioServerParameters with
 *   command `parley` (on PATH, as `npm link` puts it), args, env and cwd (a fresh project folder); the
 *   bridge starts the data dir's service in the background, which is stopped after.
 * - Streamable HTTP: `parley serve` on a free port, the client at <url>/mcp.
 *
 * "legacy" is the classic host code (the transport's context manager and a ClientSession, an initialize
 * handshake: 2025-11-25); "auto" is the SDK's high-level Client, which discovers 2026-07-28 and speaks it
 * statelessly. Each lists the tools, asks for a file write through the shipped filesystem server (its
 * write_file needs approval: the elicitation callback accepts, as a server-to-client request on 2025-11-25
 * and an input_required round on 2026-07-28), gets the `plan` prompt and completes its `specialist` argument.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { serveProcess, type ServeProcess } from '../../support/serve-one.ts';
import {
  pythonJson,
  pythonMissing,
  pythonVenv,
  runPython,
  PYTHON_VENV_TIMEOUT_MS,
  type PythonVenv,
} from '../../support/python.ts';

/** What test/python/mcp_client.py prints. */
interface McpSeen {
  protocolVersion: string;
  tools: string[];
  ask: { isError: boolean | null; structured: { status: string; answer?: string }; text: string };
  elicited: string[];
  progress: string[];
  prompts: string[];
  planPrompt: string;
  completion: string[];
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MODES = [
  ['legacy', '2025-11-25'],
  ['auto', '2026-07-28'],
] as const;

const missing = pythonMissing();
if (missing) console.warn(missing);

/** A query whose one step writes `file` through the shipped filesystem server (which asks for approval). */
const writeQuery = (file: string, content: string) =>
  `Write ${file.split('/').pop()} [[steps:1]] [[tool:filesystem/write_file ${JSON.stringify({ path: file, content })}]]`;

/**
 * Runs mcp_client.py over `transport` in `mode` against `target`, asking for a file write in `dataDir`'s
 * workspace; checks what it saw, and that the approved write happened.
 */
async function tryClient(
  venv: PythonVenv,
  [transport, mode, revision]: [string, string, string],
  target: string,
  dataDir: string,
): Promise<void> {
  const file = join(dataDir, 'workspace', `${transport}-${mode}.txt`);
  const content = `from python over ${transport} (${mode})`;
  const seen = pythonJson<McpSeen>(
    await runPython(venv, 'mcp_client.py', [transport, mode, target, writeQuery(file, content), 'wr'], {
      timeoutMs: 120_000,
    }),
  );
  expect(seen.protocolVersion).toBe(revision);
  expect(seen.tools).toEqual(expect.arrayContaining(['ask', 'council', 'list_specialists', 'get_run', 'approve']));
  // The approval reached the elicitation callback, which accepted; the run completed and the file was written.
  expect(seen.progress[0]).toMatch(/^run \S+ started$/);
  expect(seen.elicited).toEqual([expect.stringContaining('filesystem/write_file')]);
  expect(seen.ask.isError).toBeFalsy();
  expect(seen.ask.structured.status).toBe('completed');
  expect(seen.ask.structured.answer).toContain('Successfully wrote');
  expect(existsSync(file) && readFileSync(file, 'utf8')).toBe(content);
  // Prompts, and completion of the specialist argument from the shipped roster.
  expect(seen.prompts).toEqual(['council', 'plan', 'direct']);
  expect(seen.planPrompt).toContain('mode "orchestrate"');
  expect(seen.planPrompt).toContain('Keep a note');
  expect(seen.completion).toEqual(['writer']);
}

describe.skipIf(missing)('the Python mcp SDK client against Parley', () => {
  let venv: PythonVenv;
  const temps: string[] = [];
  const temp = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    temps.push(dir);
    return dir;
  };
  beforeAll(async () => {
    ensureBuilt();
    venv = await pythonVenv();
  }, PYTHON_VENV_TIMEOUT_MS + BUILD_TIMEOUT_MS);
  afterAll(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  describe('over stdio: `parley mcp` launched by the Python host', () => {
    let launch: { command: string; args: string[]; env: Record<string, string>; cwd: string };
    let dataDir: string;
    beforeAll(() => {
      // What `npm link` does: `parley` on PATH, a symlink to bin/parley.js.
      const bin = temp('parley-bin-');
      symlinkSync(join(ROOT, 'bin/parley.js'), join(bin, 'parley'));
      dataDir = temp('parley-python-stdio-');
      launch = {
        command: 'parley',
        args: ['mcp'],
        // The SDK adds its default environment (HOME, PATH, …) under these; an empty home keeps the user's out.
        env: {
          PATH: [bin, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
          HOME: temp('parley-user-'),
          PARLEY_DATA_DIR: dataDir,
          PARLEY_LOG_LEVEL: 'warn',
        },
        cwd: temp('parley-project-'),
      };
    });
    afterAll(() => {
      // The service the bridge started outlives it (until idle): stop it the way a user would.
      if (launch)
        spawnSync('parley', ['stop'], { env: { ...process.env, ...launch.env }, cwd: launch.cwd, timeout: 30_000 });
    });

    it.each(MODES)(
      '%s: tools, an approval, prompts and completion (%s)',
      (mode, revision) => tryClient(venv, ['stdio', mode, revision], JSON.stringify(launch), dataDir),
      150_000,
    );
  });

  describe('over Streamable HTTP: `parley serve`', () => {
    let served: ServeProcess | undefined;
    let url: string;
    let dataDir: string;
    beforeAll(async () => {
      dataDir = temp('parley-python-http-');
      served = await serveProcess(dataDir);
      url = served.url;
    }, 90_000);
    afterAll(async () => {
      served?.child.kill('SIGTERM');
      await served?.exit;
    });

    it.each(MODES)(
      '%s: tools, an approval, prompts and completion (%s)',
      (mode, revision) => tryClient(venv, ['http', mode, revision], `${url}/mcp`, dataDir),
      150_000,
    );
  });
});
