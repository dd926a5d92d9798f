/**
 * Replay (the same request on other models or another specialist set), fork with other models, and
 * compare, through the real server and the scripted model's request log; scoped to the caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEventOf } from '../../../src/graph/run/events.ts';
import type { Parley } from '../../../src/server.ts';
import { postJson } from '../../support/protocols/sse-read.ts';
import { ofType } from '../../support/run-events.ts';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../../support/server.ts';
import { bearer, fork, followToEnd, listCheckpoints, runToEnd } from '../../support/time-travel.ts';

const K1 = 'tt-replay-one';
const K2 = 'tt-replay-two';
let server: ShippedParley;
let parley: Parley;
let url: string;

beforeAll(async () => {
  // No team reuse: a replay of a run that taught a team would otherwise skip routing and planning.
  server = await startShippedParley({
    PARLEY_API_KEYS: `${K1},${K2}`,
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
    PARLEY_TEAM_REUSE: 'false',
  });
  ({ parley, url } = server);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const requestsOf = (runId: string) => parley.scripted!.requests.filter((r) => r.runId === runId);
const QUERY = 'Design the schema and write the API docs for our billing service [[steps:3]]';

async function replay(key: string, runId: string, body: unknown) {
  const res = await postJson(`${url}/api/runs/${runId}/replay`, body, bearer(key));
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('replay', () => {
  it('sends every role of the replay to the model it names, and compare reports what differs', async () => {
    const original = await runToEnd(parley, url, K1, { query: QUERY });
    const runId = original[0]!.runId;
    expect(new Set(requestsOf(runId).map((r) => r.model))).toEqual(new Set(['scripted']));

    const replayed = await replay(K1, runId, { model: 'gpt-5-nano' });
    expect(replayed.status).toBe(201);
    expect(replayed.json.replayOf).toBe(runId);
    const replayId = String(replayed.json.runId);
    const events = await followToEnd(parley, url, K1, replayId);
    expect((events[0] as GraphEventOf<'run.started'>).replayOf).toBe(runId);
    expect((events[0] as GraphEventOf<'run.started'>).query).toBe(QUERY);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const calls = requestsOf(replayId);
    expect(new Set(calls.map((r) => r.role))).toEqual(
      new Set(['router', 'planner', 'specialist', 'verifier', 'synthesizer']),
    );
    expect(new Set(calls.map((r) => r.model))).toEqual(new Set(['gpt-5-nano']));

    const res = await fetch(`${url}/api/runs/compare?a=${runId}&b=${replayId}`, { headers: bearer(K1) });
    expect(res.status).toBe(200);
    const compared = (await res.json()) as {
      a: { runId: string; plan: unknown[]; stepModels: string[]; usage: { modelCalls: number; costUsd: number } };
      b: { runId: string; replayOf: string; stepModels: string[]; usage: { modelCalls: number; costUsd: number } };
      differences: { field: string; a: unknown; b: unknown }[];
    };
    expect(compared.a.runId).toBe(runId);
    expect(compared.b.replayOf).toBe(runId);
    expect(compared.a.plan).toHaveLength(3);
    expect(compared.a.stepModels).toEqual(['scripted']);
    expect(compared.b.stepModels).toEqual(['gpt-5-nano']);
    expect(compared.b.usage.modelCalls).toBe(calls.length);
    const fields = compared.differences.map((d) => d.field);
    expect(fields).toContain('stepModels');
    expect(fields).toContain('usage.costUsd');
    expect(fields).toContain('steps.s1.model');
    expect(fields).not.toContain('plan');
    expect(compared.differences.find((d) => d.field === 'stepModels')).toEqual({
      field: 'stepModels',
      a: ['scripted'],
      b: ['gpt-5-nano'],
    });
  });

  it('on another specialist set plans with those alone', async () => {
    const original = await runToEnd(parley, url, K1, { query: QUERY, mode: 'orchestrate' });
    const runId = original[0]!.runId;
    expect(new Set(ofType(original, 'plan.ready')[0]!.plan.steps.map((s) => s.specialist)).size).toBeGreaterThan(1);
    const replayed = await replay(K1, runId, { specialists: ['writer'] });
    expect(replayed.status).toBe(201);
    const events = await followToEnd(parley, url, K1, String(replayed.json.runId));
    const plan = ofType(events, 'plan.ready')[0]!.plan;
    expect(new Set(plan.steps.map((s) => s.specialist))).toEqual(new Set(['writer']));
    expect(ofType(events, 'route.decided')[0]!.candidates).toEqual(['writer']);
  });

  it('refuses an unknown specialist and a bad body with 400, and starts nothing', async () => {
    const original = await runToEnd(parley, url, K1, { query: QUERY, mode: 'orchestrate' });
    const runId = original[0]!.runId;
    const calls = parley.scripted!.requests.length;
    const unknown = await replay(K1, runId, { specialists: ['nobody'] });
    expect(unknown.status).toBe(400);
    expect((unknown.json.error as { message: string }).message).toBe('specialists: no available specialist "nobody"');
    expect((await replay(K1, runId, { models: { chef: 'x' } })).status).toBe(400);
    expect((await replay(K1, runId, { model: 'has space' })).status).toBe(400);
    expect(parley.scripted!.requests.length).toBe(calls);
  });
});

describe('fork with other models', () => {
  it('runs the rest on the models named per role and per step', async () => {
    const events = await runToEnd(parley, url, K1, { query: `${QUERY} [[chain]]`, mode: 'orchestrate' });
    const runId = events[0]!.runId;
    const afterOne = (await listCheckpoints(url, K1, runId)).find((c) => c.kind === 'step' && c.stepsFinished === 1)!;
    const forked = await fork(parley, url, K1, runId, {
      checkpoint: afterOne.id,
      edit: { models: { verifier: 'gpt-5-mini', specialist: 'gpt-5-nano' }, stepModels: { s3: 'gpt-4.1' } },
    });
    expect(forked.status).toBe(201);
    const calls = requestsOf(String(forked.json.runId));
    const modelOf = (role: string) => calls.filter((r) => r.role === role).map((r) => r.model);
    expect(modelOf('verifier')).toEqual(['gpt-5-mini']);
    expect(modelOf('synthesizer')).toEqual(['scripted']);
    expect(modelOf('specialist').sort()).toEqual(['gpt-4.1', 'gpt-5-nano']);
  });
});

describe('another caller', () => {
  it('can neither replay nor compare your runs', async () => {
    const mine = (await runToEnd(parley, url, K1, { query: QUERY, mode: 'orchestrate' }))[0]!.runId;
    const theirs = (await runToEnd(parley, url, K2, { query: QUERY, mode: 'orchestrate' }))[0]!.runId;
    const replayed = await replay(K2, mine, {});
    expect(replayed.status).toBe(404);
    expect(replayed.json).toEqual({ error: { code: 'not_found', message: `No run with id "${mine}".` } });
    const compared = await fetch(`${url}/api/runs/compare?a=${theirs}&b=${mine}`, { headers: bearer(K2) });
    expect(compared.status).toBe(404);
    expect(((await compared.json()) as { error: { message: string } }).error.message).toContain(mine);
    const missing = await fetch(`${url}/api/runs/compare?a=${theirs}`, { headers: bearer(K2) });
    expect(missing.status).toBe(400);
  });
});
