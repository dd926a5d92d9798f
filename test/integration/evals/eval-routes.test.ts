/**
 * GET /api/evals and /api/evals/:id through the real server (createParley, API keys on), over the
 * scorecards `parley eval` keeps under the data dir (store/scorecards/files.ts, the writer the CLI
 * uses): each caller sees its own, an admin every caller's; the last 50 are kept; a scorecard too big
 * is kept without its outcomes; unknown ids, bad limits and unknown parameters answer in the API's shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseOutcome } from '../../../src/eval/run-suite.ts';
import { scorecardOf } from '../../../src/eval/scorecard.ts';
import { callerIdOf } from '../../../src/http/auth.ts';
import { KEEP_SCORECARDS, keepScorecard } from '../../../src/store/scorecards/files.ts';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../../support/server.ts';
import { bearer } from '../../support/time-travel.ts';

const K1 = 'eval-key-one';
const K2 = 'eval-key-two';
const ADMIN = 'eval-key-admin';
let server: ShippedParley;

beforeAll(async () => {
  server = await startShippedParley({
    PARLEY_API_KEYS: `${K1},${K2}`,
    PARLEY_ADMIN_KEYS: ADMIN,
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

function outcome(id: string, pass: boolean, detail = 'the answer: "…"'): CaseOutcome {
  return {
    id,
    repeat: 1,
    pass,
    runId: `run-${id}`,
    status: 'completed',
    checks: [{ check: 'answer contains "x"', pass, detail }],
    usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 0, costUsd: 0.001, modelCalls: 2, toolCalls: 0 },
    durationMs: 300,
  } as CaseOutcome;
}

const get = async (path: string, key: string) => {
  const res = await fetch(`${server.url}${path}`, { headers: bearer(key) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};
type Listed = { scorecards: { id: string; suite: string; caller: string; failures: number }[] };

describe('GET /api/evals', () => {
  it("lists the caller's scorecards newest first; one by id in full; another key gets 404", async () => {
    const t = Date.now();
    const older = keepScorecard(
      server.dataDir,
      callerIdOf(K1),
      scorecardOf('first', 1, [outcome('a', true)]),
      new Date(t - 1000),
    );
    const newer = keepScorecard(
      server.dataDir,
      callerIdOf(K1),
      scorecardOf('second', 1, [outcome('a', true), outcome('b', false)]),
      new Date(t),
    );
    const listed = (await get('/api/evals', K1)).json as unknown as Listed;
    expect(listed.scorecards.map((s) => s.id)).toEqual([newer.id, older.id]);
    expect(listed.scorecards[0]).toMatchObject({
      suite: 'second',
      failures: 1,
      overall: { runs: 2, passed: 1, cases: 2 },
      totals: { calls: 4, tokens: 240, wallMs: 600 },
    });
    expect(listed.scorecards[0]).not.toHaveProperty('scorecard');

    const one = await get(`/api/evals/${newer.id}`, K1);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: newer.id, suite: 'second' });
    const card = one.json.scorecard as { cases: { id: string }[]; outcomes: unknown[] };
    expect(card.cases.map((c) => c.id)).toEqual(['a', 'b']);
    expect(card.outcomes).toHaveLength(2);

    // Another key: an empty list, and the id answers like an unknown one.
    expect(((await get('/api/evals', K2)).json as unknown as Listed).scorecards).toEqual([]);
    const other = await get(`/api/evals/${newer.id}`, K2);
    expect(other).toEqual({
      status: 404,
      json: { error: { code: 'not_found', message: `No scorecard with id "${newer.id}".` } },
    });
    // An admin sees it, with whose it is.
    const admin = (await get('/api/evals', ADMIN)).json as unknown as Listed;
    expect(admin.scorecards.find((s) => s.id === newer.id)?.caller).toBe(callerIdOf(K1));
    expect((await get(`/api/evals/${newer.id}`, ADMIN)).status).toBe(200);
  });

  it('keeps the last 50 per caller, the oldest dropped; limit bounds the list', async () => {
    const t = Date.now() + 10_000;
    const ids = Array.from(
      { length: KEEP_SCORECARDS + 5 },
      (_, i) =>
        keepScorecard(server.dataDir, callerIdOf(K2), scorecardOf(`s${i}`, 1, [outcome('a', true)]), new Date(t + i))
          .id,
    );
    const listed = ((await get('/api/evals', K2)).json as unknown as Listed).scorecards;
    expect(listed).toHaveLength(KEEP_SCORECARDS);
    expect(listed[0]!.id).toBe(ids.at(-1));
    expect(listed.at(-1)!.id).toBe(ids[5]);
    expect((await get(`/api/evals/${ids[0]}`, K2)).status).toBe(404);
    expect((await get(`/api/evals/${ids[5]}`, K2)).status).toBe(200);
    const three = ((await get('/api/evals?limit=3', K2)).json as unknown as Listed).scorecards;
    expect(three.map((s) => s.id)).toEqual(ids.slice(-3).reverse());
  });

  it('keeps a scorecard past the size limit without its outcomes, and says so', async () => {
    const big = 'x'.repeat(100_000);
    const card = scorecardOf(
      'big',
      1,
      Array.from({ length: 30 }, (_, i) => outcome(`c${i}`, false, big)),
    );
    const kept = keepScorecard(server.dataDir, callerIdOf(K1), { ...card, failures: card.failures.slice(0, 2) });
    expect(kept.outcomesDropped).toBe(true);
    const one = await get(`/api/evals/${kept.id}`, K1);
    expect(one.json).toMatchObject({ outcomesDropped: true, overall: { runs: 30 } });
    expect((one.json.scorecard as { outcomes: unknown[] }).outcomes).toEqual([]);
  });

  it('names the configuration a --compare scorecard ran under', async () => {
    const card = { ...scorecardOf('compared', 1, [outcome('a', true)]), configuration: 'b.env' };
    const kept = keepScorecard(server.dataDir, callerIdOf(K1), card);
    expect(kept.configuration).toBe('b.env');
    const listed = (await get('/api/evals?limit=50', K1)).json as unknown as { scorecards: { id: string }[] };
    expect(listed.scorecards.find((s) => s.id === kept.id)).toMatchObject({ configuration: 'b.env' });
  });

  it('refuses bad limits, unknown parameters and malformed ids in the API shape', async () => {
    for (const q of ['limit=0', 'limit=abc', 'limit=-1', 'limit=1000'])
      expect((await get(`/api/evals?${q}`, K1)).json).toEqual({
        error: { code: 'invalid_request', message: 'limit must be a whole number from 1 to 50.' },
      });
    expect((await get('/api/evals?limit=500', K1)).status).toBe(200);
    const extra = await get('/api/evals?caller=anonymous', K1);
    expect(extra).toEqual({
      status: 400,
      json: { error: { code: 'invalid_request', message: 'Unknown query parameter: caller.' } },
    });
    for (const id of ['nope', '..%2F..%2Fstore', 'ev-1-2'])
      expect((await get(`/api/evals/${id}`, K1)).status).toBe(404);
    const noKey = await fetch(`${server.url}/api/evals`);
    expect(noKey.status).toBe(401);
  });
});
