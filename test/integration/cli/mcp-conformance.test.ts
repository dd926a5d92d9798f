/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, a dev dependency) against `parley serve`
 * as users launch it, once per revision Parley serves: `--requirements 2026-07-28` (stateless, `_meta`
 * on every request) and `--requirements 2025-11-25` (initialize, sessions). The suite runs on Node 24
 * (test/support/node24.ts) as a child process and writes each scenario's checks to a folder; every
 * failing check must be one that needs the suite's own fixture server (its `test_*` tools, `test://`
 * resources, prompts and task tools, which Parley does not have), listed below with why.
 * The same command by hand: docs/protocols/mcp.md, "Conformance".
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NODE24_MISSING, node24 } from '../../support/node24.ts';
import { serveProcess, type ServeProcess } from '../../support/serve-one.ts';

const SUITE = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);

const nodeBin = node24();
if (!nodeBin) console.log(`mcp-conformance.test.ts: ${NODE24_MISSING}`);

/** Scenarios that call the suite's fixture tools, resources or prompts: every check of them may fail here. */
const FIXTURE_SCENARIOS = new Set([
  // test_simple_text, test_image_content, ...: the suite's own tools.
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-with-logging',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'json-schema-2020-12', // json_schema_2020_12_tool
  // test:// resources and resources/subscribe on test://watched-resource.
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  // test_simple_prompt, test_prompt_with_arguments, ...
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'completion-complete', // completes an argument of test_prompt_with_arguments
  // test_input_required_result_* tools.
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  // The tasks extension (not scored for 2026-07-28) on slow_compute, greet, failing_job, confirm_delete, ...
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
  // Tools annotated with x-mcp-header (not scored: pending).
  'http-custom-header-server-validation',
]);

/** Single checks of otherwise passing scenarios that need a fixture (server-stateless's diagnostic tools). */
const FIXTURE_CHECKS = new Set([
  'sep-2575-server-rejects-undeclared-capability', // test_missing_capability
  'sep-2575-missing-capability-http-400', // test_missing_capability
  'sep-2575-http-server-no-independent-requests-on-stream', // test_streaming_elicitation
  'sep-2575-server-no-log-without-loglevel', // test_logging_tool
]);

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs the suite for `revision` against `url`; the checks of each scenario and the suite's summary line. */
async function runSuite(url: string, revision: string) {
  const out = mkdtempSync(join(tmpdir(), `parley-conformance-${revision}-`));
  const child = spawn(nodeBin!, [SUITE, 'server', '--url', url, '--requirements', revision, '-o', out], {
    cwd: out,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  const scenarios = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    try {
      scenarios.set(name, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
    } catch {
      // A scenario folder without checks (the suite failed to run it) shows up as missing below.
    }
  }
  rmSync(out, { recursive: true, force: true });
  return { scenarios, total: /Total: (\d+) passed, (\d+) failed/.exec(output), output };
}

describe.skipIf(!nodeBin)('MCP conformance suite against parley serve', () => {
  // One server for both revisions: the suite only talks to it (a session, a stateless request, each
  // scenario on its own), and a server started per revision cost a start of Parley and its MCP servers.
  let server: ServeProcess | undefined;
  let dataDir: string;
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'parley-conformance-'));
    server = await serveProcess(dataDir);
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exit;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['2026-07-28', '2025-11-25'])(
    '--requirements %s: every check that needs no fixture of the suite passes',
    async (revision) => {
      const url = `${server!.url}/mcp`;
      const { scenarios, total, output } = await runSuite(url, revision);
      expect(total, output.slice(-2_000)).not.toBeNull();
      console.log(`MCP conformance ${revision}: ${total![1]} passed, ${total![2]} failed (fixture scenarios included)`);
      const unexpected = [...scenarios]
        .filter(([name]) => !FIXTURE_SCENARIOS.has(name))
        .flatMap(([name, checks]) =>
          checks
            .filter((c) => (c.status === 'FAILURE' || c.status === 'ERROR') && !FIXTURE_CHECKS.has(c.id))
            .map((c) => `${name} / ${c.id}: ${c.errorMessage ?? c.status}`),
        );
      expect(unexpected).toEqual([]);
      // The scenarios Parley answers on its own ran (not skipped by a crash of the suite).
      for (const name of ['tools-list', 'resources-list', 'prompts-list', 'dns-rebinding-protection'])
        expect([...scenarios.keys()]).toContain(name);
      if (revision === '2026-07-28')
        for (const name of ['server-stateless', 'caching', 'http-header-validation', 'sep-2164-resource-not-found'])
          expect([...scenarios.keys()]).toContain(name);
    },
    120_000,
  );
});
