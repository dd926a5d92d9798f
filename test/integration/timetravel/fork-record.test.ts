/**
 * A fork's record names its parent (issue 44 §7, docs/time-travel.md): GET /api/runs/:id of a fork has
 * the `forkedFrom` the fork answer gave — while it runs (the run store's request), once it finished
 * (execution memory), after a restart on the same data dir, and from the run store alone when the local
 * knowledge graph never saw it (another replica's embedded graph: here, the graph file removed) — and
 * GET /api/runs lists it; a run that is not a fork has none. The whole server over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { KUZU_FILE } from '../../../src/knowledge/open.ts';
import { silentLogger } from '../../../src/log.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { NO_HOME } from '../../support/home.ts';
import { postJson } from '../../support/protocols/sse-read.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';
import { bearer, followToEnd, listCheckpoints, runToEnd } from '../../support/time-travel.ts';

const K1 = 'fork-record-one';
const K2 = 'fork-record-two';
const QUERY = 'Draft the release notes for version two [[steps:3]] [[chain]]';
const dataDir = mkdtempSync(join(tmpdir(), 'parley-fork-record-'));
const started: Parley[] = [];

async function start(): Promise<{ parley: Parley; url: string }> {
  const config = loadConfig({
    PARLEY_HOME: NO_HOME,
    PARLEY_PORT: '0',
    PARLEY_DATA_DIR: dataDir,
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_API_KEYS: `${K1},${K2}`,
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
  });
  const parley = await createParley(config, { logger: silentLogger, telemetry: false });
  started.push(parley);
  return { parley, url: (await parley.listen()).url };
}

afterAll(async () => {
  for (const p of started) await p.close().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

type Record = { id: string; status: string; forkedFrom?: unknown };

async function record(url: string, runId: string, key = K1): Promise<{ status: number; json: Record }> {
  const res = await fetch(`${url}/api/runs/${runId}`, { headers: bearer(key) });
  return { status: res.status, json: (await res.json()) as Record };
}

async function listed(url: string): Promise<Record[]> {
  const res = await fetch(`${url}/api/runs?limit=10`, { headers: bearer(K1) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { runs: Record[] }).runs;
}

describe("a fork's record", () => {
  it('names its parent while it runs, once it finished, after a restart and from the run store alone', async () => {
    let { parley, url } = await start();
    const parentId = (await runToEnd(parley, url, K1, { query: QUERY, mode: 'orchestrate' }))[0]!.runId;
    const afterOne = (await listCheckpoints(url, K1, parentId)).find(
      (c) => c.kind === 'step' && c.stepsFinished === 1,
    )!;

    // The fork's calls are slow (the scripted model's latency), so it is asked about while it runs.
    const res = await postJson(
      `${url}/api/runs/${parentId}/fork`,
      { checkpoint: afterOne.id, edit: { query: `${QUERY} [[latency:400]]` } },
      bearer(K1),
    );
    expect(res.status).toBe(201);
    const answer = (await res.json()) as { runId: string; forkedFrom: unknown };
    expect(answer.forkedFrom).toEqual({ runId: parentId, checkpoint: afterOne.id });
    const forkId = answer.runId;
    const running = await record(url, forkId);
    expect(running.status).toBe(200);
    expect(running.json).toMatchObject({ id: forkId, status: 'running', forkedFrom: answer.forkedFrom });
    expect((await listed(url)).find((r) => r.id === forkId)?.forkedFrom).toEqual(answer.forkedFrom);
    const events = await followToEnd(parley, url, K1, forkId);
    expect(events[0]).toMatchObject({ type: 'run.started', forkedFrom: answer.forkedFrom });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });

    const expectOrigins = async (where: string) => {
      const fork = await record(url, forkId);
      expect(fork.status, where).toBe(200);
      expect(fork.json, where).toMatchObject({ id: forkId, status: 'completed', forkedFrom: answer.forkedFrom });
      const parent = await record(url, parentId);
      expect(parent.status, where).toBe(200);
      expect(parent.json, where).not.toHaveProperty('forkedFrom');
      // Another caller's fork answers like an unknown run, its origin included.
      expect((await record(url, forkId, K2)).json, where).toEqual({
        error: { code: 'not_found', message: `No run with id "${forkId}".` },
      });
    };
    await expectOrigins('finished');
    const runs = await listed(url);
    expect(runs.find((r) => r.id === forkId)?.forkedFrom).toEqual(answer.forkedFrom);
    expect(runs.find((r) => r.id === parentId)).not.toHaveProperty('forkedFrom');

    // A restart on the same data dir: the record is kept.
    await parley.close();
    ({ parley, url } = await start());
    await expectOrigins('after a restart');
    expect((await listed(url)).find((r) => r.id === forkId)?.forkedFrom).toEqual(answer.forkedFrom);

    // The local knowledge graph gone (as on a replica whose own graph never saw the run): the run store answers.
    await parley.close();
    rmSync(join(dataDir, KUZU_FILE), { recursive: true, force: true });
    ({ parley, url } = await start());
    expect(await parley.store.getRun(forkId)).toBeUndefined();
    await expectOrigins('from the run store');
  });
});
