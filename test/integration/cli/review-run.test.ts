/**
 * `npm run review:run` as a reviewer runs it: the driver starts the relay and `parley serve` as
 * shipped, this test acts as the model (trivial answers written into the relay folder, never by the
 * driver), the driver approves the write through /api/approve and writes transcript.md.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { answerAll, type RelayRequestFile } from '../../support/relay-answers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'parley-review-test-'));
}, BUILD_TIMEOUT_MS);
afterAll(() => rm(dir, { recursive: true, force: true }));

it('runs the tools scenario: every request answered from the folder, the write approved, the transcript written', async () => {
  const driver = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/review/run.ts', '--dir', dir, '--scenario', 'tools'],
    {
      cwd: ROOT,
    },
  );
  let out = '';
  driver.stdout.on('data', (d: Buffer) => (out += d.toString()));
  driver.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => driver.on('exit', resolve));
  let workspace = '';
  const started = new Promise<void>((resolve) => {
    const check = () => {
      const m = /\(data (\S+)\)/.exec(out);
      if (m) {
        workspace = join(m[1]!, 'workspace');
        resolve();
      } else setTimeout(check, 50);
    };
    check();
  });
  await started;

  const decide = (r: RelayRequestFile) => {
    const schema = r.body.response_format?.json_schema?.name;
    const text = JSON.stringify(r.body.messages);
    if (schema === 'route') return { content: { route: 'plan', reason: 'a file to write' } };
    if (schema === 'graph_plan') {
      expect(text).toContain('\\"id\\":\\"filesystem\\"');
      // The step writes a file, so the plan says it changes things (read-only steps get read-only tools).
      const steps = [
        { id: 'note', specialist: 'filesystem', objective: 'Write the cache design note.', changes: true },
      ];
      return { content: { rationale: 'one writing step', steps } };
    }
    if (schema === 'verification') return { content: { score: 0.9, feedback: 'Written.', failedStepIds: [] } };
    const write = (r.body.tools ?? []).map((t) => t.function?.name ?? '').find((n) => n.endsWith('write_file'));
    if (write && !r.body.messages.some((m) => m.role === 'tool')) {
      const args = { path: join(workspace, 'cache-design.md'), content: '# Cache design\n\nA read-through cache.\n' };
      return { tool_calls: [{ name: write, arguments: args }] };
    }
    return { content: `Wrote the note (${r.headers['x-parley-role']}).` };
  };
  const answerer = answerAll(dir, decide);
  try {
    expect(await exit).toBe(0);
  } finally {
    await answerer.stop();
  }

  expect(out).toMatch(/relay: 001-router: JSON "route" — waiting for 001-router\.answer\.json/);
  expect(out).toMatch(/✓ approved \S+: filesystem\/write_file .*→ HTTP 200/);
  const transcript = await readFile(join(dir, 'transcript.md'), 'utf8');
  expect(transcript).toContain('> Write a short design note to notes/cache-design.md in the workspace');
  expect(transcript).toMatch(/\*\*approval\.requested\*\* `[^`]+` tool: filesystem\/write_file/);
  expect(transcript).toMatch(/tool\.finished `filesystem\/write_file` ok/);
  expect(transcript).toContain('### cache-design.md');
  expect(transcript).toContain('A read-through cache.');
  expect(transcript).toContain('Wrote the note (synthesizer).');

  // The per-role table adds up to what the run itself reported.
  const finished = /\*\*run\.finished\*\* completed — (\d+) model calls, (\d+) in \/ (\d+) out tokens/.exec(transcript);
  const total = /\| \*\*total\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \|/.exec(transcript);
  expect(finished).not.toBeNull();
  expect(total?.slice(1)).toEqual(finished?.slice(1));
  for (const role of ['router', 'planner', 'specialist', 'verifier', 'synthesizer'])
    expect(transcript).toMatch(new RegExp(`\\| ${role} \\| \\d+ \\|`));
}, 180_000);
