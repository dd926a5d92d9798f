/**
 * Engine overhead and memory: `node --expose-gc --import tsx bench/engine.ts [--runs 60] [--steps 8]
 * [--latencies 0,50] [--open 1000] [--no-memory] [--no-overhead]`
 *
 * - Overhead per run at 0 ms and 50 ms model latency: the time from start() to run.finished (what a
 *   client waits for) minus the time during which at least one of the run's model calls was in
 *   flight (the union of the calls' intervals, measured by the scripted model in its own process),
 *   i.e. what the engine, the model client's HTTP and the Kuzu knowledge graph add on top of the
 *   model's critical path. Runs are sequential, mode orchestrate, `--steps` parallel steps: plan +
 *   N specialist calls + verification + streamed synthesis. Also shown: how long after run.finished
 *   `handle.result` settles (the execution-memory write, off the critical path).
 * - `--in-process`: the same runs against the scripted model's answers computed in-process
 *   (bench/engine-inprocess-model.ts: no HTTP, no SDK), so the critical path is zero and the wall
 *   time is the engine's own overhead (with the Kuzu store), apart from what every contender pays
 *   for the SDK and HTTP. Also shows the process CPU time per run.
 * - With `--in-process`, also the heap a finished run keeps while it is retained for replay
 *   (PARLEY_RUN_RETENTION_MS, default 10 min): 500 sequential runs, heap growth ÷ runs.
 * - Memory per in-flight run: 1,000 runs held open (their planning call waits on the model), heap
 *   and RSS growth divided by the number of runs.
 */
import { parseArgs } from 'node:util';
import { inProcessModel } from './engine-inprocess-model.ts';
import { buildEngine, startModel, unionMs } from './lib/engine-rig.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '60' },
    steps: { type: 'string', default: '8' },
    latencies: { type: 'string', default: '0,50' },
    open: { type: 'string', default: '1000' },
    'no-memory': { type: 'boolean', default: false },
    'no-overhead': { type: 'boolean', default: false },
    'in-process': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const STEPS = Number(values.steps);
const OPEN = Number(values.open);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (n: number) => n.toFixed(1);

async function overhead(latencyMs: number) {
  const model = await startModel(latencyMs);
  const { engine, store } = await buildEngine(model.url);
  const overheads: number[] = [];
  const walls: number[] = [];
  const records: number[] = [];
  let calls = 0;
  try {
    for (let i = 0; i < RUNS + 5; i++) {
      const t0 = performance.now();
      // Distinct topics: every run plans (no TeamConfig reuse), like a stream of new questions.
      const handle = engine.start({
        query: `Write a report on subject number ${i} [[steps:${STEPS}]]`,
        mode: 'orchestrate',
        protocol: 'bench',
      });
      let finished = 0;
      for await (const e of handle.events()) if (e.type === 'run.finished') finished = performance.now();
      const result = await handle.result;
      const settled = performance.now();
      if (result.status !== 'completed') throw new Error(`run ${i} ${result.status}: ${result.error}`);
      if (i < 5) continue; // warm-up
      const runCalls = await model.calls(handle.id);
      calls += runCalls.length;
      walls.push(finished - t0);
      overheads.push(finished - t0 - unionMs(runCalls));
      records.push(settled - finished);
    }
  } finally {
    await engine.close();
    await store.close();
    await model.close();
  }
  const mean = overheads.reduce((a, b) => a + b, 0) / overheads.length;
  console.log(
    `latency ${String(latencyMs).padStart(2)} ms, ${STEPS} steps: ${RUNS} runs, ${(calls / RUNS).toFixed(0)} model calls/run, wall to run.finished p50 ${fmt(pct(walls, 50))} ms; ` +
      `overhead mean ${fmt(mean)} ms, p50 ${fmt(pct(overheads, 50))} ms, p95 ${fmt(pct(overheads, 95))} ms ` +
      `(result settles after run.finished, execution-memory write: p50 ${fmt(pct(records, 50))} ms)`,
  );
}

async function inProcessOverhead() {
  const model = inProcessModel();
  const { engine, store } = await buildEngine('http://127.0.0.1:9/unused', model);
  const walls: number[] = [];
  const cpus: number[] = [];
  const records: number[] = [];
  const memoryWaits: number[] = [];
  try {
    for (let i = 0; i < RUNS + 5; i++) {
      let memoryWait = 0;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const handle = engine.start({
        query: `Write a report on subject number ${i} [[steps:${STEPS}]]`,
        mode: 'orchestrate',
        protocol: 'bench',
      });
      let finished = 0;
      for await (const e of handle.events()) {
        if (e.type === 'run.finished') finished = performance.now();
        else if (e.type === 'node.finished' && e.node === 'memory') memoryWait = e.durationMs;
      }
      const cpu = process.cpuUsage(cpu0);
      const result = await handle.result;
      const settled = performance.now();
      if (result.status !== 'completed') throw new Error(`run ${i} ${result.status}: ${result.error}`);
      if (i < 5) continue;
      walls.push(finished - t0);
      cpus.push((cpu.user + cpu.system) / 1000);
      records.push(settled - finished);
      memoryWaits.push(memoryWait);
    }
  } finally {
    await engine.close();
    await store.close();
  }
  const calls = [...model.calls.values()];
  console.log(
    `in-process model, ${STEPS} steps: ${RUNS} runs, ${calls[calls.length - 1]} model calls/run; engine overhead (wall to run.finished) ` +
      `p50 ${fmt(pct(walls, 50))} ms, p95 ${fmt(pct(walls, 95))} ms, min ${fmt(pct(walls, 0))} ms ` +
      `(of which waiting for the memory search p50 ${fmt(pct(memoryWaits, 50))} ms); process CPU to run.finished p50 ${fmt(pct(cpus, 50))} ms ` +
      `(execution-memory write after run.finished: p50 ${fmt(pct(records, 50))} ms)`,
  );
}

async function retainedPerFinishedRun() {
  const gc = (globalThis as { gc?: () => void }).gc;
  const { engine, store } = await buildEngine('http://127.0.0.1:9/unused', inProcessModel());
  const runs = 500;
  const query = `Summarize the quarterly sales figures for each region [[steps:${STEPS}]]`;
  try {
    for (let i = 0; i < 20; i++) await engine.start({ query, mode: 'orchestrate', protocol: 'bench' }).result;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < runs; i++) await engine.start({ query, mode: 'orchestrate', protocol: 'bench' }).result;
    gc?.();
    const after = process.memoryUsage().heapUsed;
    console.log(
      `${runs} finished runs retained for replay (${STEPS} steps, in-process model): heap +${fmt((after - before) / runs / 1024)} KiB/run ` +
        `(${engine.retainedRuns} retained; the store's own growth included)`,
    );
  } finally {
    await engine.close();
    await store.close();
  }
}

async function memoryPerOpenRun(inProcess: boolean) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) console.log('(run with node --expose-gc for stable memory figures)');
  const model = inProcess ? undefined : await startModel(0);
  const local = inProcess ? inProcessModel() : undefined;
  const { engine, store } = await buildEngine(model?.url ?? 'http://127.0.0.1:9/unused', local);
  // Planning calls answered or started so far (the held runs each make one).
  const planned = async () => (local ? local.calls.size : await model!.count('graph_plan'));
  try {
    for (let i = 0; i < 5; i++)
      await engine.start({
        query: `Write a report on warm up ${i} [[steps:2]]`,
        mode: 'orchestrate',
        protocol: 'bench',
      }).result;
    await new Promise((r) => setTimeout(r, 100));
    gc?.();
    const before = process.memoryUsage();
    const planCallsBefore = await planned();
    // [[latency:…]] holds each run's planning call at the model: the runs stay in flight.
    const handles = Array.from({ length: OPEN }, (_, i) =>
      engine.start({
        query: `Write a report on held subject ${i} [[steps:3]] [[latency:600000]]`,
        mode: 'orchestrate',
        protocol: 'bench',
      }),
    );
    while ((await planned()) - planCallsBefore < OPEN) await new Promise((r) => setTimeout(r, 200));
    gc?.();
    const after = process.memoryUsage();
    console.log(
      `${OPEN} runs in flight (each waiting on its planning call${inProcess ? ', in-process model: the engine alone' : ' over HTTP'}): ` +
        `heap +${fmt((after.heapUsed - before.heapUsed) / OPEN / 1024)} KiB/run, ` +
        `rss +${fmt((after.rss - before.rss) / OPEN / 1024)} KiB/run (engine ${engine.activeRuns} active)`,
    );
    await engine.close();
    await Promise.all(handles.map((h) => h.result));
  } finally {
    await store.close();
    await model?.close();
  }
}

console.log(`Parley engine bench — node ${process.version}`);
if (values['in-process']) await inProcessOverhead();
if (!values['no-overhead']) for (const latency of values.latencies.split(',').map(Number)) await overhead(latency);
if (!values['no-memory']) {
  if (values['in-process']) {
    await retainedPerFinishedRun();
    await memoryPerOpenRun(true);
  }
  await memoryPerOpenRun(false);
}
