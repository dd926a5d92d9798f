/**
 * Time travel on a 50-step run (docs/time-travel.md): `npm run bench:time-travel`
 *
 * The whole server in this process (createParley, the scripted model, no MCP servers) runs one plan of
 * 50 independent steps (`[[steps:50]]`, ~1,900 events), then times over real HTTP on 127.0.0.1:
 *   1. GET /api/runs/:id/checkpoints (54 checkpoints, the light list: counts and usage, no outputs), --lists
 *      times, and GET /api/runs/:id/checkpoints/:checkpoint (the one after the 25th step, in full) as often;
 *   2. POST /api/runs/:id/fork from the checkpoint after the 25th step, until the 201 (the fork has
 *      started: its state read, its edits checked, the engine started), --forks times; each fork is
 *      awaited before the next one.
 */
import { parseArgs } from 'node:util';
import { postJson, readAll } from '../test/support/protocols/sse-read.ts';
import { EMPTY_MCP_CONFIG, startShippedParley } from '../test/support/server.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: { lists: { type: 'string', default: '20' }, forks: { type: 'string', default: '10' } },
});
const server = await startShippedParley({ PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG, PARLEY_STEP_CONCURRENCY: '8' });
try {
  const res = await postJson(`${server.url}/stream`, {
    query: 'Draft the release notes [[steps:50]]',
    mode: 'orchestrate',
  });
  const events = (await readAll(res)).map((m) => m.json);
  const runId = events[0]!.runId;
  await server.parley.engine.get(runId)?.result;
  const lists: number[] = [];
  let listed: { id: string; kind: string; stepsFinished: number }[] = [];
  let bytes = 0;
  for (let i = 0; i < Number(values.lists); i++) {
    const t0 = performance.now();
    const text = await (await fetch(`${server.url}/api/runs/${runId}/checkpoints`)).text();
    lists.push(performance.now() - t0);
    bytes = text.length;
    listed = (JSON.parse(text) as { checkpoints: typeof listed }).checkpoints;
  }
  const checkpoint = listed.find((c) => c.kind === 'step' && c.stepsFinished === 25)!.id;
  const reads: number[] = [];
  let oneBytes = 0;
  for (let i = 0; i < Number(values.lists); i++) {
    const t0 = performance.now();
    oneBytes = (await (await fetch(`${server.url}/api/runs/${runId}/checkpoints/${checkpoint}`)).text()).length;
    reads.push(performance.now() - t0);
  }
  const forks: number[] = [];
  for (let i = 0; i < Number(values.forks); i++) {
    const t0 = performance.now();
    const forked = await postJson(`${server.url}/api/runs/${runId}/fork`, { checkpoint });
    const { runId: forkId } = (await forked.json()) as { runId: string };
    forks.push(performance.now() - t0);
    await server.parley.engine.get(forkId)?.result;
  }
  const ms = (xs: number[], p: number) => percentile(xs, p).toFixed(1);
  console.log(`run: ${events.length} events, ${listed.length} checkpoints (${Math.round(bytes / 1024)} KiB listed)`);
  console.log(`list checkpoints: p50 ${ms(lists, 50)} ms, p95 ${ms(lists, 95)} ms (${lists.length} times)`);
  console.log(
    `read one checkpoint (${checkpoint}, ${Math.round(oneBytes / 1024)} KiB): p50 ${ms(reads, 50)} ms, p95 ${ms(reads, 95)} ms`,
  );
  console.log(`start a fork (to 201): p50 ${ms(forks, 50)} ms, p95 ${ms(forks, 95)} ms (${forks.length} times)`);
} finally {
  await server.close();
}
