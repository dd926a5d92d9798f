/** Finished runs stay replayable within both retention limits: time and count (oldest finished dropped first). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type Rig } from '../../support/protocols/agui-rig.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ config: { engine: { runRetentionMax: 3 }, budget: { caller: { runsPerMinute: 10_000 } } } });
});
afterAll(async () => {
  await rig?.close();
});

/** One run over POST /stream, read to its end; its id. */
async function streamRun(query: string): Promise<string> {
  const res = await postJson(`${rig.url}/stream`, { query, mode: 'direct' });
  expect(res.status).toBe(200);
  const runId = res.headers.get('x-parley-run-id')!;
  await readAll(res);
  await rig.parley.engine.get(runId)?.result; // retained once its result settles
  return runId;
}

describe('PARLEY_RUN_RETENTION_MAX', () => {
  it('keeps only the latest finished runs replayable, and says why an older one is gone', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await streamRun(`say hello number ${i}`));
    expect(rig.parley.engine.retainedRuns).toBe(3);

    for (const id of ids.slice(0, 2)) {
      expect(rig.parley.engine.get(id)).toBeUndefined();
      const res = await fetch(`${rig.url}/api/runs/${id}/events`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toContain('PARLEY_RUN_RETENTION_MAX');
      expect(body.error.message).toContain('the latest 3');
    }
    for (const id of ids.slice(2)) {
      const res = await fetch(`${rig.url}/api/runs/${id}/events`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      const events = (await res.json()) as { type: string; runId: string }[];
      expect(events[0]).toMatchObject({ type: 'run.started', runId: id });
      expect(events.at(-1)).toMatchObject({ type: 'run.finished', runId: id });
    }
  });
});
