/**
 * Council decisions read back (issue 14 §4): GET /api/decisions[/:id] over real HTTP and the MCP
 * resource parley://decisions/{id} through the MCP client SDK, on the whole server with two callers'
 * keys and an admin key. Another caller's decision answers exactly like one that does not exist.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { DecisionRecord } from '../../../src/knowledge/store.ts';
import { callerIdOf } from '../../../src/http/auth.ts';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../../support/server.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { expectAdvice, expectVerdictData } from '../../support/council-answer.ts';
import { ofType } from '../../support/run-events.ts';

const K1 = 'decisions-key-one';
const K2 = 'decisions-key-two';
const ADMIN = 'decisions-admin-key';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let server: ShippedParley;
let url: string;
/** K1's two council runs, oldest first. */
const questions = ['Should we adopt the heron release process?', 'Should we move the wiki to the monorepo?'];
let decided: DecisionRecord[];

async function council(key: string, question: string): Promise<string> {
  const res = await postJson(`${url}/stream`, { query: question, mode: 'council' }, bearer(key));
  expect(res.status).toBe(200);
  const events = (await readAll(res)).map((m) => m.json);
  const runId = events[0]!.runId;
  await server.parley.engine.get(runId)?.result;
  // Over SSE the run.finished answer is the advice; the verdict (with its confidence) is on council.stage.
  expectAdvice(ofType(events, 'run.finished')[0]!.answer);
  expectVerdictData(ofType(events, 'council.stage').find((e) => e.stage === 'verdict')?.verdict);
  return runId;
}

async function answer(path: string, key: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}${path}`, { headers: bearer(key) });
  return { status: res.status, body: await res.text() };
}

const listOf = async (path: string, key: string) =>
  (JSON.parse((await answer(path, key)).body) as { decisions: DecisionRecord[] }).decisions;

beforeAll(async () => {
  server = await startShippedParley({
    PARLEY_API_KEYS: `${K1},${K2}`,
    PARLEY_ADMIN_KEYS: ADMIN,
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
  });
  url = server.url;
  const runIds: string[] = [];
  for (const q of questions) runIds.push(await council(K1, q));
  const all = await server.parley.store.listDecisions(50);
  decided = runIds.map((id) => all.find((d) => d.runId === id)!);
  expect(decided.every(Boolean)).toBe(true);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('GET /api/decisions', () => {
  it("lists the caller's own verdicts newest first, bounded by ?limit", async () => {
    const mine = await listOf('/api/decisions', K1);
    expect(mine.map((d) => d.id)).toEqual([decided[1]!.id, decided[0]!.id]);
    expect(mine[0]).toMatchObject({ question: questions[1], callerId: callerIdOf(K1), runId: decided[1]!.runId });
    expect(mine[0]!.verdict.recommendation).toEqual(decided[1]!.verdict.recommendation);
    expect((await listOf('/api/decisions?limit=1', K1)).map((d) => d.id)).toEqual([decided[1]!.id]);
  });

  it('answers one decision by id', async () => {
    const res = await answer(`/api/decisions/${decided[0]!.id}`, K1);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual(decided[0]);
  });

  it("another caller sees none of them, and K1's id answers like an unknown one; the admin sees them", async () => {
    expect(await listOf('/api/decisions?limit=1000', K2)).toEqual([]);
    const ghost = randomUUID();
    const foreign = await answer(`/api/decisions/${decided[0]!.id}`, K2);
    const unknown = await answer(`/api/decisions/${ghost}`, K2);
    expect(foreign.status).toBe(404);
    expect(foreign.body.split(decided[0]!.id).join('<id>')).toBe(unknown.body.split(ghost).join('<id>'));
    expect((await listOf('/api/decisions', ADMIN)).map((d) => d.id)).toEqual(
      expect.arrayContaining(decided.map((d) => d.id)),
    );
    expect((await answer(`/api/decisions/${decided[0]!.id}`, ADMIN)).status).toBe(200);
  });

  it('refuses a bad query with 400 in the one error shape', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'status=completed']) {
      const res = await answer(`/api/decisions?${query}`, K1);
      expect(res.status, query).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    }
  });

  it('needs a key like every /api route', async () => {
    expect((await fetch(`${url}/api/decisions`)).status).toBe(401);
  });
});

describe('MCP resource parley://decisions/{id}', () => {
  const connect = async (key: string) => {
    const client = new Client({ name: `decisions-${key}`, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer(key) } }),
    );
    return client;
  };
  const read = (c: Client, id: string) =>
    c.readResource({ uri: `parley://decisions/${id}` }).then(
      (r) => JSON.parse((r.contents[0] as { text: string }).text) as DecisionRecord,
      (err: Error) => err.message,
    );
  const listed = async (c: Client) =>
    (await c.listResources()).resources.map((r) => r.uri).filter((u) => u.startsWith('parley://decisions/'));

  it("lists and reads the session caller's decisions; another caller's answer like unknown ones", async () => {
    const k1 = await connect(K1);
    const k2 = await connect(K2);
    try {
      expect(await listed(k1)).toEqual(decided.map((d) => `parley://decisions/${d.id}`).reverse());
      expect(await read(k1, decided[1]!.id)).toEqual(decided[1]);

      expect(await listed(k2)).toEqual([]);
      const ghost = randomUUID();
      const foreign = await read(k2, decided[1]!.id);
      expect(typeof foreign).toBe('string');
      expect((foreign as string).replace(decided[1]!.id, '<id>')).toBe(
        ((await read(k2, ghost)) as string).replace(ghost, '<id>'),
      );
    } finally {
      await k1.close();
      await k2.close();
    }
  });
});
