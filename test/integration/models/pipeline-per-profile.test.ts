/**
 * The whole pipeline under every scripted-model provider profile, through the real server: a run
 * over POST /stream that routes, plans two parallel steps (one calls a destructive MCP tool, so a
 * human approves it over POST /api/approve), is verified with a retry band (0.5 then 0.9) and
 * synthesized; then a council run. Each profile reproduces one provider quirk (docs/scripted-model.md).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { silentLogger } from '../../../src/log.ts';
import { createParley } from '../../../src/server.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';
import { postJson, readSse } from '../../support/protocols/sse-read.ts';

const CASES: { profile: string; env?: Record<string, string>; strategy: string }[] = [
  { profile: 'openai', strategy: 'json_schema' },
  { profile: 'response-format-ignored', strategy: 'json_schema' },
  { profile: 'response-format-ignored', env: { PARLEY_MODEL_STRUCTURED: 'prompt' }, strategy: 'prompt' },
  { profile: 'json-schema-rejected', strategy: 'tool' },
  { profile: 'strict-ignored', strategy: 'json_schema' },
  { profile: 'max-tokens-rejected', strategy: 'json_schema' },
  { profile: 'temperature-rejected', strategy: 'json_schema' },
  { profile: 'reasoning', strategy: 'json_schema' },
  { profile: 'no-stream-usage', strategy: 'json_schema' },
  { profile: 'system-hoisted', strategy: 'json_schema' },
  { profile: 'anthropic-compat', env: { PARLEY_MODEL_PROVIDER: 'anthropic' }, strategy: 'tool' },
  { profile: 'o-series', strategy: 'json_schema' },
];

let mcp: FixtureHttpServer;
let dir: string;
beforeAll(async () => {
  mcp = await startFixtureHttpServer();
  dir = mkdtempSync(join(tmpdir(), 'parley-profiles-'));
  mkdirSync(join(dir, 'skills'));
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { notes: { url: mcp.mcpUrl } } }));
  writeFileSync(
    join(dir, 'skills', 'notes-keeper.md'),
    '---\nname: notes-keeper\ndescription: Keeps meeting notes; saves and reads notes\ndomains: [notes, meeting]\ntools: [notes/write_note, notes/read_note]\nmodel_role: specialist\n---\nYou keep meeting notes in the notes server.\n',
  );
  writeFileSync(
    join(dir, 'skills', 'summarizer.md'),
    '---\nname: summarizer\ndescription: Writes short summaries of meeting notes\ndomains: [summary, meeting]\nmodel_role: specialist\n---\nYou write short summaries.\n',
  );
});
afterAll(async () => {
  await mcp?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Streams a run, accepting every approval it asks for, until run.finished. */
async function runAccepting(url: string, body: object): Promise<GraphEvent[]> {
  const res = await postJson(`${url}/stream`, body);
  expect(res.status).toBe(200);
  const events: GraphEvent[] = [];
  for await (const m of readSse(res)) {
    events.push(m.json);
    if (m.json.type === 'approval.requested' && m.json.request.kind === 'tool') {
      const decisions = Object.fromEntries(m.json.request.toolCalls.map((c) => [c.toolCallId, 'accept']));
      expect((await postJson(`${url}/api/approve`, { request_id: m.json.request.id, decisions })).status).toBe(200);
    }
  }
  return events;
}
const ofType = <K extends GraphEvent['type']>(events: GraphEvent[], type: K) =>
  events.filter((e): e is GraphEventOf<K> => e.type === type);

describe.each(CASES)('the pipeline with the scripted model as $profile $env', ({ profile, env, strategy }) => {
  it('routes, plans parallel steps with an approved tool call, verifies with a retry, synthesizes; and runs a council', async () => {
    const config = loadConfig({
      PARLEY_PORT: '0',
      PARLEY_DATA_DIR: ':memory:',
      PARLEY_LOG_LEVEL: 'silent',
      PARLEY_MCP_CONFIG: join(dir, 'mcp.json'),
      PARLEY_SKILLS_DIRS: join(dir, 'skills'),
      PARLEY_SCRIPTED_PROFILE: profile,
      // Sent so the profiles that reject them are exercised (they are learned away).
      PARLEY_MODEL_MAX_TOKENS: '800',
      PARLEY_MODEL_TEMPERATURE: '0.2',
      PARLEY_MODEL_MAX_RETRIES: '0',
      ...env,
    });
    const parley = await createParley(config, { logger: silentLogger, telemetry: false });
    try {
      const { url } = await parley.listen();
      const file = `${profile}.md`;
      const query = `Save the meeting notes and summarize them [[route:plan]] [[steps:2]] [[verify:0.5,0.9]] [[tool:notes/write_note {"path":"${file}","content":"ship it"}]]`;
      const events = await runAccepting(url, { query });
      const finished = ofType(events, 'run.finished')[0]!;
      expect(finished, JSON.stringify(finished)).toMatchObject({ status: 'completed' });
      expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'llm_plan' });
      const plan = ofType(events, 'plan.ready')[0]!.plan;
      expect(plan.steps.map((s) => s.specialist).sort()).toEqual(['notes-keeper', 'summarizer']);
      expect(plan.steps.every((s) => s.dependsOn.length === 0)).toBe(true);
      expect(ofType(events, 'approval.requested').length).toBeGreaterThanOrEqual(1);
      const tools = ofType(events, 'tool.finished');
      expect(tools.length).toBeGreaterThanOrEqual(1);
      expect(tools.every((t) => t.status === 'ok' && t.tool === 'notes/write_note')).toBe(true);
      expect(mcp.state.writes.filter((w) => w.path === file)[0]).toEqual({ path: file, content: 'ship it' });
      expect(ofType(events, 'verify.result').map((e) => [e.round, e.score, e.next])).toEqual([
        [1, 0.5, 'retry_failed'],
        [2, 0.9, 'synthesize'],
      ]);
      const answer = ofType(events, 'answer.delta')
        .map((e) => e.text)
        .join('');
      expect(answer.length).toBeGreaterThan(0);
      expect(answer).not.toMatch(/draft|<parley:|\{"route"/);
      // The strategy the structured roles ended on (preset, override or learned).
      expect(parley.model.capabilities('planner').structured).toBe(strategy);

      const council = await runAccepting(url, { query: 'Should we move the notes to a wiki?', mode: 'council' });
      expect(ofType(council, 'run.finished')[0]).toMatchObject({ status: 'completed' });
      expect(new Set(ofType(council, 'council.stage').map((e) => e.stage)).size).toBeGreaterThanOrEqual(3);
      expect(
        ofType(council, 'answer.delta')
          .map((e) => e.text)
          .join('').length,
      ).toBeGreaterThan(0);
    } finally {
      await parley.close();
    }
  }, 60_000);
});
