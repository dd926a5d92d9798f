/**
 * Dynamic teams: `npm run bench:dynamic [-- --runs 30 --workers 4,8 --latencies 0,50 --open 100]`
 * (also run at the end of `npm run bench`).
 *
 * - Per run, a manager spawning N workers (mode dynamic, `[[spawn:N]]`) beside the static plan of the
 *   same shape (mode orchestrate, `[[steps:N]]`): wall time from start() to run.finished, the model's
 *   critical path (the union of the run's model-call intervals, measured by the scripted model in its
 *   own process) and the engine's overhead = wall − critical path. The dynamic run's extra cost over
 *   static should be its extra model turns (the manager's three turns replace the planning call),
 *   which land on the critical path, not in the overhead.
 * - Memory per in-flight dynamic run: `--open` runs held while the manager's first call is in flight
 *   (`[[latency]]` holds it), heap and RSS growth divided by the runs.
 * - The manager's answer (docs/engine.md): per team size, the calls of a dynamic run whose manager's result
 *   is the answer, of the same team with a verifier note (`[[verify:0.9]]`: the synthesizer writes it), and
 *   the input tokens of that synthesizer call (the run's usage before and after it).
 */
import { parseArgs } from 'node:util';
import { buildEngine, startModel, unionMs, type ModelProcess } from './lib/engine-rig.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    workers: { type: 'string', default: '4,8' },
    latencies: { type: 'string', default: '0,50' },
    open: { type: 'string', default: '100' },
  },
});
const RUNS = Number(values.runs);
const list = (v: string) => v.split(',').map(Number);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => n.toFixed(1);

interface Shape {
  wallMs: number;
  pathMs: number;
  overheadMs: number;
  calls: number;
  steps: number;
}

async function measure(latencyMs: number, workers: number, mode: 'dynamic' | 'orchestrate'): Promise<Shape> {
  const model = await startModel(latencyMs);
  const { engine, store } = await buildEngine(model.url);
  const shapes: Shape[] = [];
  const directive = mode === 'dynamic' ? `[[spawn:${workers}]]` : `[[route:plan]] [[steps:${workers}]]`;
  try {
    for (let i = 0; i < RUNS + 3; i++) {
      // Each run its own words: a repeated query would reuse the first run's team (router stage 1).
      const query = `Research security and database design, variant ${i} ${directive}`;
      const t0 = performance.now();
      const handle = engine.start({ query, mode, protocol: 'bench' });
      let steps = 0;
      for await (const e of handle.events()) if (e.type === 'step.finished') steps++;
      const wallMs = performance.now() - t0;
      const result = await handle.result;
      if (result.status !== 'completed') throw new Error(`${mode} run ended ${result.status}: ${result.error}`);
      const calls = await model.calls(handle.id);
      const pathMs = unionMs(calls);
      if (i >= 3) shapes.push({ wallMs, pathMs, overheadMs: wallMs - pathMs, calls: calls.length, steps });
    }
  } finally {
    await engine.close();
    await store.close();
    await model.close();
  }
  return {
    wallMs: median(shapes.map((s) => s.wallMs)),
    pathMs: median(shapes.map((s) => s.pathMs)),
    overheadMs: median(shapes.map((s) => s.overheadMs)),
    calls: median(shapes.map((s) => s.calls)),
    steps: median(shapes.map((s) => s.steps)),
  };
}

async function memoryPerOpenRun(open: number, workers: number): Promise<{ heapKB: number; rssKB: number }> {
  const model = await startModel(0);
  const { engine, store } = await buildEngine(model.url);
  try {
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const rss0 = process.memoryUsage().rss;
    let waiting = 0;
    const handles = Array.from({ length: open }, (_, i) => {
      const handle = engine.start({
        query: `Research security, variant ${i} [[spawn:${workers}]] [[latency:60000]]`,
        mode: 'dynamic',
        protocol: 'bench',
      });
      void (async () => {
        for await (const e of handle.events()) if (e.type === 'step.started') waiting++;
      })();
      return handle;
    });
    // Every run's manager step has started: its first model call is in flight.
    while (waiting < open) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    global.gc?.();
    const heapKB = (process.memoryUsage().heapUsed - heap0) / 1024 / open;
    const rssKB = (process.memoryUsage().rss - rss0) / 1024 / open;
    for (const h of handles) engine.cancel(h.id, 'bench done');
    await Promise.all(handles.map((h) => h.result));
    return { heapKB, rssKB };
  } finally {
    await engine.close();
    await store.close();
    await model.close();
  }
}

interface AnswerCost {
  calls: number;
  inputTokens: number;
  synthesizerInputTokens: number;
}

async function answerCost(
  engine: Awaited<ReturnType<typeof buildEngine>>['engine'],
  model: ModelProcess,
  query: string,
) {
  const handle = engine.start({ query, mode: 'dynamic', protocol: 'bench' });
  let spent = 0;
  let beforeSynthesis: number | undefined;
  for await (const e of handle.events()) {
    if (e.type === 'usage') spent = e.usage.inputTokens;
    if (e.type === 'node.started' && e.node === 'synthesizer') beforeSynthesis = spent;
  }
  const result = await handle.result;
  if (result.status !== 'completed') throw new Error(`dynamic run ended ${result.status}: ${result.error}`);
  const total = result.usage.inputTokens;
  return {
    calls: (await model.calls(handle.id)).length,
    inputTokens: total,
    synthesizerInputTokens: beforeSynthesis === undefined ? 0 : total - beforeSynthesis,
  } satisfies AnswerCost;
}

async function managerAnswerSaving(workers: number): Promise<{ manager: AnswerCost; synthesized: AnswerCost }> {
  const model = await startModel(0);
  const { engine, store } = await buildEngine(model.url);
  try {
    // Different words for each: a repeated query would reuse the first run's team (router stage 1).
    const manager = await answerCost(engine, model, `Research security and database design [[spawn:${workers}]]`);
    const synthesized = await answerCost(
      engine,
      model,
      `Research security and database design, with a note [[spawn:${workers}]] [[verify:0.9]]`,
    );
    return { manager, synthesized };
  } finally {
    await engine.close();
    await store.close();
    await model.close();
  }
}

export async function dynamicBench(): Promise<void> {
  console.log(`\nDynamic teams (median of ${RUNS} sequential runs; overhead = wall − model critical path)\n`);
  console.log('| L (ms) | N | mode | wall ms | model path ms | overhead ms | model calls | steps |');
  console.log('| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const latency of list(values.latencies))
    for (const workers of list(values.workers))
      for (const mode of ['orchestrate', 'dynamic'] as const) {
        const s = await measure(latency, workers, mode);
        console.log(
          `| ${latency} | ${workers} | ${mode === 'dynamic' ? 'dynamic' : 'static'} | ${fmt(s.wallMs)} | ${fmt(s.pathMs)} | ${fmt(s.overheadMs)} | ${s.calls} | ${s.steps} |`,
        );
      }
  const open = Number(values.open);
  const workers = list(values.workers)[0]!;
  const m = await memoryPerOpenRun(open, workers);
  console.log(
    `\nMemory per in-flight dynamic run (${open} runs, each manager's first call in flight): heap ${fmt(m.heapKB)} KB, RSS ${fmt(m.rssKB)} KB`,
  );

  console.log(`\nThe manager's answer: a team that needs no synthesizer, and the same team with a verifier note\n`);
  console.log("| N | calls (manager's answer) | calls (synthesizer) | the synthesizer call's input tokens |");
  console.log('| ---: | ---: | ---: | ---: |');
  for (const n of list(values.workers)) {
    const { manager, synthesized } = await managerAnswerSaving(n);
    console.log(`| ${n} | ${manager.calls} | ${synthesized.calls} | ${synthesized.synthesizerInputTokens} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await dynamicBench();
