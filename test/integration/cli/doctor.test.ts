/** `parley doctor` as a user runs it (a child process of bin/parley.js), against the scripted model under each provider profile. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NO_HOME } from '../../support/home.ts';

const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// bin/parley.js runs the compiled dist/.
beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

function doctor(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_'),
    ),
  );
  const child = spawn(process.execPath, [BIN, 'doctor'], {
    env: { ...clean, PARLEY_HOME: NO_HOME, PARLEY_LOG_LEVEL: 'silent', ...env },
    cwd: ROOT,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const structuredLines = (stdout: string) => stdout.split('\n').filter((l) => l.includes('structured output for'));

// profile → [probe lines expected, strategy every structured role ends on, advice expected]
const CASES: [string, RegExp[], string, RegExp[]][] = [
  [
    'openai',
    [/ok {3}chat/, /ok {3}streaming/, /ok {3}stream_usage/, /ok {3}json_schema/, /ok {3}tools/, /ok {3}images/],
    'json_schema',
    [],
  ],
  [
    'response-format-ignored',
    [/FAIL json_schema: accepted but ignored: the JSON came wrapped in prose/, /ok {3}tools/],
    'json_schema',
    [/set PARLEY_MODEL_STRUCTURED=tool/],
  ],
  ['json-schema-rejected', [/FAIL json_schema: HTTP 400/, /ok {3}tools/], 'tool', []],
  ['strict-ignored', [/ok {3}json_schema/, /ok {3}tools/], 'json_schema', []],
  ['max-tokens-rejected', [/ok {3}chat/], 'json_schema', []],
  ['temperature-rejected', [/ok {3}chat/], 'json_schema', []],
  ['reasoning', [/ok {3}chat/, /ok {3}json_schema/], 'json_schema', []],
  ['no-stream-usage', [/ok {3}streaming/, /FAIL stream_usage/], 'json_schema', [/no usage in streams/]],
  ['system-hoisted', [/ok {3}chat/], 'json_schema', []],
  ['small-local', [/FAIL json_schema/, /FAIL tools: HTTP 400/], 'prompt', [/tool calling fails/]],
  ['images-rejected', [/FAIL images: HTTP 400/], 'json_schema', [/images=no/]],
];

describe('parley doctor against the scripted model', () => {
  // Each profile is its own `parley doctor` process with its own scripted model: they run at once.
  it.concurrent.each(CASES)(
    'profile %s: probes, the strategy each structured role will use, advice; exit 0',
    async (profile, probes, strategy, advice) => {
      // Max tokens and temperature are configured so the rejecting profiles are met (and learned from).
      const { code, stdout, stderr } = await doctor({
        PARLEY_SCRIPTED_PROFILE: profile,
        PARLEY_MODEL_MAX_TOKENS: '500',
        PARLEY_MODEL_TEMPERATURE: '0.2',
      });
      expect(stderr).toBe('');
      for (const p of probes) expect(stdout, profile).toMatch(p);
      const lines = structuredLines(stdout);
      expect(lines.map((l) => l.trim())).toEqual(
        ['router', 'planner', 'verifier', 'council_reviewer', 'council_chairman'].map(
          (r) => `ok   structured output for ${r}: ${strategy}`,
        ),
      );
      for (const a of advice) expect(stdout, profile).toMatch(a);
      expect(stdout).toMatch(/price: found in the catalog/);
      expect(stdout).toMatch(/The pipeline can run on this configuration\.$/m);
      expect(code).toBe(0);
    },
    30_000,
  );

  it('an endpoint that does not answer: chat FAIL, advice, non-zero exit', async () => {
    const { code, stdout } = await doctor({
      PARLEY_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      PARLEY_MODEL_API_KEY: 'k',
      PARLEY_MODEL: 'nowhere-model',
      PARLEY_MODEL_TIMEOUT_MS: '2000',
    });
    expect(stdout).toMatch(/FAIL chat: /);
    expect(stdout).toMatch(/chat fails: check PARLEY_MODEL_BASE_URL, the API key and the model name "nowhere-model"/);
    expect(stdout).toMatch(/price: MISSING from the catalog/);
    expect(stdout).toMatch(/The pipeline CANNOT run on this configuration/);
    expect(code).toBe(1);
  }, 30_000);
});
