/**
 * A fork survives a kill -9 of `parley serve` (docs/time-travel.md, docs/durability.md): started from
 * the checkpoint after step 2 of a 4-step chain and killed while step 3 runs, it resumes on the next
 * start from its own stored checkpoint — the carried steps 1–2 are still carried, never run, the step in
 * flight runs again — and finishes, its checkpoints still listing the carried steps.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NO_HOME } from '../../support/home.ts';
import { postJson, readAll, readSse } from '../../support/protocols/sse-read.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const { serve, tempDataDir, servers } = useServeProcesses('parley-fork-restart', {
  PARLEY_HOME: NO_HOME,
  PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
});

const QUERY = 'Draft the release notes for version two [[steps:4]] [[chain]]';
const started = (events: GraphEvent[]) =>
  events.filter((e): e is GraphEventOf<'step.started'> => e.type === 'step.started').map((e) => e.stepId);

/** GET /api/runs/:id/checkpoints: the light list (docs/time-travel.md). */
async function checkpoints(url: string, runId: string): Promise<{ id: string; kind: string; stepsFinished: number }[]> {
  const res = await fetch(`${url}/api/runs/${runId}/checkpoints`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { checkpoints: { id: string; kind: string; stepsFinished: number }[] }).checkpoints;
}

/** GET /api/runs/:id/checkpoints/:checkpoint: one in full, with its finished steps. */
async function checkpoint(url: string, runId: string, id: string): Promise<{ steps: { stepId: string }[] }> {
  const res = await fetch(`${url}/api/runs/${runId}/checkpoints/${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { checkpoint: { steps: { stepId: string }[] } }).checkpoint;
}

describe('a forked run at kill -9', () => {
  it('resumes after the restart with its carried steps still carried, and finishes', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    const parent = (await readAll(await postJson(`${first.url}/stream`, { query: QUERY, mode: 'orchestrate' }))).map(
      (m) => m.json as GraphEvent,
    );
    expect(parent.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const parentId = parent[0]!.runId;
    const afterTwo = (await checkpoints(first.url, parentId)).find((c) => c.kind === 'step' && c.stepsFinished === 2)!;

    // The fork's own calls are slow (the edited query asks the scripted model for latency), so it is
    // caught with step 3 in flight.
    const forked = await postJson(`${first.url}/api/runs/${parentId}/fork`, {
      checkpoint: afterTwo.id,
      edit: { query: `${QUERY} [[latency:1500]]` },
    });
    expect(forked.status).toBe(201);
    const forkId = ((await forked.json()) as { runId: string }).runId;
    const stream = readSse(await fetch(`${first.url}/api/runs/${forkId}/events`));
    const before: GraphEvent[] = [];
    for (let m = await stream.next(); !m.done; m = await stream.next()) {
      before.push(m.value.json as GraphEvent);
      if (m.value.json.type === 'step.started') break;
    }
    expect(started(before)).toEqual(['s3']);
    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');
    await stream.return(undefined);

    const second = await serve(dataDir);
    const res = await fetch(`${second.url}/stream/${forkId}`, { headers: { 'last-event-id': '0' } });
    if (res.status !== 200) console.log(servers.map((s) => s.log()).join('\n-----\n'));
    expect(res.status).toBe(200);
    const events: GraphEvent[] = [];
    for await (const m of readSse(res)) events.push(m.json as GraphEvent);

    expect(events.filter((e) => e.type === 'run.started')).toEqual([
      expect.objectContaining({ forkedFrom: { runId: parentId, checkpoint: afterTwo.id } }),
    ]);
    // Routed once as a fork, once more as the restart resumed its stored plan.
    const reasons = events.filter((e) => e.type === 'route.decided').map((e) => (e as { reason: string }).reason);
    expect(reasons).toEqual([
      expect.stringContaining(`forked from run ${parentId} at checkpoint ${afterTwo.id}`),
      expect.stringContaining('resuming the checkpointed plan after a restart'),
    ]);
    // s3 was in flight at the kill and runs again; s1 and s2 stay carried: never started, before or after.
    expect(started(events)).toEqual(['s3', 's3', 's4']);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const last = await checkpoint(second.url, forkId, (await checkpoints(second.url, forkId)).at(-1)!.id);
    expect(last.steps.map((s) => s.stepId).sort()).toEqual(['s1', 's2', 's3', 's4']);
  });
});
