/**
 * Learning benchmark (issue #14 §2): `npm run bench:learning [-- --rounds 8]`
 *
 * Through the real engine (Kuzu in memory, the repo's specialists, the openai-SDK model client over
 * HTTP to the scripted model on 127.0.0.1), mode auto:
 *
 * 1. The repeated-task workload (bench/learning/families.ts): task families asked round after round,
 *    interleaved, exact repeats and paraphrases, once with team reuse on (the default) and once with
 *    PARLEY_TEAM_REUSE=false. Model calls per run (what the scripted model received for the run) and
 *    the verifier score per round, then the mean after warm-up (round 1, when nothing is proven yet).
 * 2. The near-miss set (bench/learning/near-misses.json): per pair, a caller of its own runs the
 *    taught query (the team is proven) and then the near miss. A reuse is stage team_config; a FALSE
 *    reuse is a reuse whose executed step objectives do not quote the near miss's own query (the
 *    scripted planner writes each objective from the query, so every objective of a run planned or
 *    instantiated for that query quotes it). Also shown: how many pairs the store's pattern match
 *    offered a team for (what stage 1 reused before issue #14: bag-of-stems similarity alone).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../src/config.ts';
import { Engine } from '../src/graph/engine.ts';
import type { GraphEvent } from '../src/graph/run/events.ts';
import { ApprovalBroker } from '../src/hitl/approvals.ts';
import { ingestAll } from '../src/knowledge/ingest/ingest.ts';
import { openKuzuStore } from '../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore } from '../src/knowledge/store.ts';
import { createModelClient, pointAtScriptedModel } from '../src/llm/index.ts';
import { startScriptedModel, type ScriptedModel } from '../src/scripted-model/index.ts';
import type { ToolHost } from '../src/tools/types.ts';
import { workload } from './learning/families.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '8' } } });
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 2) throw new Error('--rounds must be an integer >= 2');

interface NearMiss {
  kind: string;
  taught: string;
  asked: string;
}
const NEAR_MISSES = (
  JSON.parse(readFileSync(new URL('./learning/near-misses.json', import.meta.url), 'utf8')) as { pairs: NearMiss[] }
).pairs;

const noTools: ToolHost = {
  listTools: async () => [],
  getTool: async () => undefined,
  callTool: async (id) => ({ ok: false, text: `no tool ${id}`, full: null, error: `no tool ${id}` }),
  close: async () => {},
};

interface Parley {
  engine: Engine;
  store: KnowledgeStore;
  scripted: ScriptedModel;
  run(query: string, callerId?: string): Promise<RunFacts>;
  close(): Promise<void>;
}

interface RunFacts {
  status: string;
  stage: string | undefined;
  modelCalls: number;
  score: number | null;
  objectives: string[];
}

async function startParley(teamReuse: boolean): Promise<Parley> {
  const scripted = await startScriptedModel({ latencyMs: 0 });
  const base = loadConfig({
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_TEAM_REUSE: String(teamReuse),
  });
  const config: Config = {
    ...base,
    budget: { ...base.budget, caller: { ...base.budget.caller, runsPerMinute: 1_000_000, tokens: 1e12, costUsd: 1e9 } },
  };
  config.model = pointAtScriptedModel({ ...config.model, maxRetries: 0 }, scripted.url);
  const store = await openKuzuStore({ path: ':memory:' });
  await ingestAll({ store, skillsDirs: [fileURLToPath(new URL('../specialists', import.meta.url))], a2aPeers: [] });
  const approvals = new ApprovalBroker({ timeoutMs: config.approvals.timeoutMs, defaultDecision: 'deny' });
  const engine = new Engine({ model: createModelClient(config.model), store, tools: noTools, approvals, config });
  return {
    engine,
    store,
    scripted,
    async run(query, callerId) {
      const handle = engine.start({
        query,
        protocol: 'bench',
        mode: 'auto',
        ...(callerId ? { caller: { id: callerId } } : {}),
      });
      const events: GraphEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      const result = await handle.result;
      const verdicts = events.flatMap((e) => (e.type === 'verify.result' ? [e.score] : []));
      return {
        status: result.status,
        stage: events.flatMap((e) => (e.type === 'route.decided' ? [e.stage] : []))[0],
        modelCalls: scripted.requests.filter((r) => r.runId === result.runId && r.endpoint === 'chat.completions')
          .length,
        score: verdicts.at(-1) ?? null,
        objectives: events.flatMap((e) => (e.type === 'step.started' ? [e.objective] : [])),
      };
    },
    async close() {
      await engine.close();
      await store.close();
      await scripted.close();
    },
  };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const fixed = (x: number, d = 2) => (Number.isNaN(x) ? '—' : x.toFixed(d));

async function runWorkload(teamReuse: boolean) {
  const parley = await startParley(teamReuse);
  try {
    const rows: (RunFacts & { round: number; exact: boolean })[] = [];
    for (const item of workload(ROUNDS))
      rows.push({ ...(await parley.run(item.query)), round: item.round, exact: item.exact });
    return rows;
  } finally {
    await parley.close();
  }
}

async function runNearMisses() {
  const parley = await startParley(true);
  try {
    const rows: { pair: NearMiss; offered: boolean; reused: boolean; falseReuse: boolean; taughtStatus: string }[] = [];
    for (const [i, pair] of NEAR_MISSES.entries()) {
      const callerId = `near-miss-${i}`;
      const taught = await parley.run(pair.taught, callerId);
      const offered = (await parley.store.findTeamConfig(pair.asked, { callerId })) !== undefined;
      const asked = await parley.run(pair.asked, callerId);
      const reused = asked.stage === 'team_config';
      rows.push({
        pair,
        offered,
        reused,
        falseReuse: reused && asked.objectives.some((o) => !o.includes(pair.asked.trim())),
        taughtStatus: taught.status,
      });
    }
    return rows;
  } finally {
    await parley.close();
  }
}

const on = await runWorkload(true);
const off = await runWorkload(false);

console.log(
  `\nRepeated-task workload: ${on.length} runs (${ROUNDS} rounds of ${on.length / ROUNDS} interleaved families), mode auto, scripted model`,
);
console.log('round | calls/run reuse on | calls/run reuse off | score on | score off | team reuses');
for (let round = 1; round <= ROUNDS; round++) {
  const a = on.filter((r) => r.round === round);
  const b = off.filter((r) => r.round === round);
  const reuses = a.filter((r) => r.stage === 'team_config').length;
  console.log(
    `${String(round).padStart(5)} | ${fixed(mean(a.map((r) => r.modelCalls))).padStart(18)} | ${fixed(mean(b.map((r) => r.modelCalls))).padStart(19)} | ${fixed(mean(a.flatMap((r) => (r.score === null ? [] : [r.score])))).padStart(8)} | ${fixed(mean(b.flatMap((r) => (r.score === null ? [] : [r.score])))).padStart(9)} | ${reuses}/${a.length}`,
  );
}
const warm = (rows: typeof on) => rows.filter((r) => r.round > 1);
const callsOn = mean(warm(on).map((r) => r.modelCalls));
const callsOff = mean(warm(off).map((r) => r.modelCalls));
const scored = (rows: typeof on) => rows.flatMap((r) => (r.score === null ? [] : [r.score]));
const notCompleted = [...on, ...off].filter((r) => r.status !== 'completed').length;
console.log(
  `\nafter warm-up (rounds 2-${ROUNDS}): ${fixed(callsOn)} model calls per run with reuse vs ${fixed(callsOff)} without: ${fixed((1 - callsOn / callsOff) * 100, 1)}% fewer`,
);
console.log(
  `  exact repeats reused: ${warm(on).filter((r) => r.exact && r.stage === 'team_config').length}/${warm(on).filter((r) => r.exact).length}, paraphrases reused: ${warm(on).filter((r) => !r.exact && r.stage === 'team_config').length}/${warm(on).filter((r) => !r.exact).length}`,
);
console.log(
  `mean verifier score: ${fixed(mean(scored(on)), 3)} with reuse vs ${fixed(mean(scored(off)), 3)} without (after warm-up: ${fixed(mean(scored(warm(on))), 3)} vs ${fixed(mean(scored(warm(off))), 3)})`,
);
if (notCompleted) console.log(`runs not completed: ${notCompleted}`);

const near = await runNearMisses();
console.log(`\nNear-miss set: ${near.length} pairs (bench/learning/near-misses.json)`);
console.log('kind       | pairs | offered by the pattern match | reused | false reuses');
for (const kind of [...new Set(near.map((r) => r.pair.kind))]) {
  const rows = near.filter((r) => r.pair.kind === kind);
  console.log(
    `${kind.padEnd(10)} | ${String(rows.length).padStart(5)} | ${String(rows.filter((r) => r.offered).length).padStart(28)} | ${String(rows.filter((r) => r.reused).length).padStart(6)} | ${rows.filter((r) => r.falseReuse).length}`,
  );
}
const falseReuses = near.filter((r) => r.falseReuse);
console.log(
  `total: ${near.filter((r) => r.offered).length} offered (the old rule reused these), ${near.filter((r) => r.reused).length} reused, ${falseReuses.length} false reuses`,
);
for (const r of falseReuses) console.log(`  FALSE REUSE (${r.pair.kind}): "${r.pair.taught}" -> "${r.pair.asked}"`);
const untaught = near.filter((r) => r.taughtStatus !== 'completed').length;
if (untaught) console.log(`pairs whose taught run did not complete: ${untaught}`);
