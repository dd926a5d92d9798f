/**
 * Turns the workers' results into bench/results/latest.json and the stdout table: each figure as
 * median [min–max] with ratios against LangGraph.js and the floor measured in the same run, the
 * cross-contender answer and call-count checks, and where Parley stands against the issue's goals.
 */
import type { FirstEventResult } from './scenarios/first-event.ts';
import type { LeakResult } from './scenarios/leak.ts';
import type { MemoryResult } from './scenarios/memory.ts';
import type { OverheadResult } from './scenarios/overhead.ts';
import type { ThroughputResult } from './scenarios/throughput.ts';
import type { Summary } from './stats.ts';

export interface ContenderResults {
  description: string;
  overhead?: OverheadResult[];
  throughput?: ThroughputResult[];
  memory?: MemoryResult;
  leak?: LeakResult;
  firstEvent?: FirstEventResult;
  errors: string[];
}

export interface Goal {
  goal: string;
  contender: string;
  measured: string;
  met: boolean | null;
}

export interface BenchResults {
  date: string;
  quick: boolean;
  machine: Record<string, string | number>;
  contenders: Record<string, ContenderResults>;
  checks: {
    sameAnswer: { fanOut: number; fingerprints: Record<string, string>; equal: boolean }[];
    modelCalls: string[];
  };
  goals: Goal[];
}

const f = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const ms = (s: Summary | undefined) => (s ? `${f(s.median)} [${f(s.min)}–${f(s.max)}]` : '–');
const kb = (bytes: number) => `${f(bytes / 1024, 1)} KB`;
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? '–' : `${f(a / b)}×`;

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function renderTables(results: BenchResults): string {
  const names = Object.keys(results.contenders);
  const c = results.contenders;
  const out: string[] = [];
  out.push(`Parley benchmark ${results.date}${results.quick ? ' (QUICK mode: fewer trials)' : ''}`);
  out.push(
    Object.entries(results.machine)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' · '),
  );

  const overheadKeys = [
    ...new Set(names.flatMap((n) => (c[n]!.overhead ?? []).map((o) => `${o.latencyMs}/${o.fanOut}`))),
  ];
  const overheadRows: string[][] = [];
  for (const key of overheadKeys) {
    const [l, n] = key.split('/').map(Number);
    const find = (name: string) => c[name]?.overhead?.find((o) => o.latencyMs === l && o.fanOut === n);
    const lg = find('langgraph');
    const fl = find('floor');
    for (const name of names) {
      const o = find(name);
      if (!o) continue;
      const p = o.pairedFloor;
      overheadRows.push([
        `L=${l} N=${n}`,
        name,
        `${f(o.modelCalls.perRun.median, 0)}/${o.modelCalls.expected}${o.modelCalls.ok ? '' : ' ✗'} · ${f(o.stages.median, 0)}`,
        ms(o.wallMs),
        ms(o.overheadMs),
        f(o.outsideModelMs.median),
        f(o.cpuMs.median),
        p ? ms(p.wallOverFloorMs) : name === 'floor' ? '0' : '–',
        p ? f(p.cpuOverFloorMs.median) : name === 'floor' ? '0' : '–',
        ratio(o.overheadMs.median, lg?.overheadMs.median),
        ratio(p?.wallOverFloorMs.median, lg?.pairedFloor?.wallOverFloorMs.median),
        ratio(o.overheadMs.median, fl?.overheadMs.median),
      ]);
    }
  }
  out.push('\nOverhead per run, one run at a time (ms; median [min–max])');
  out.push(
    '  overhead = wall − stages·L; outside model = wall − time inside the model server (its clock); CPU = this process per run;',
  );
  out.push(
    "  Δ floor = minus the floor run interleaved in the same process (paired, same load): the framework's own cost",
  );
  out.push(
    table(
      [
        'case',
        'contender',
        'calls · stages',
        'wall',
        'overhead',
        'outside model',
        'CPU',
        'Δwall vs floor',
        'ΔCPU vs floor',
        'overhead ÷LG',
        'Δwall ÷LG Δwall',
        'overhead ÷floor',
      ],
      overheadRows,
    ),
  );

  const tpKeys = [
    ...new Set(names.flatMap((n) => (c[n]!.throughput ?? []).map((t) => `${t.latencyMs}/${t.inFlight}`))),
  ];
  const tpRows: string[][] = [];
  for (const key of tpKeys) {
    const [l, k] = key.split('/').map(Number);
    const find = (name: string) => c[name]?.throughput?.find((t) => t.latencyMs === l && t.inFlight === k);
    const lg = find('langgraph');
    const fl = find('floor');
    for (const name of names) {
      const t = find(name);
      if (!t) continue;
      tpRows.push([
        `L=${l} in flight=${k}`,
        name,
        `${f(t.runsPerSec.median, 1)} [${f(t.runsPerSec.min, 1)}–${f(t.runsPerSec.max, 1)}]`,
        ratio(t.runsPerSec.median, lg?.runsPerSec.median),
        ratio(t.runsPerSec.median, fl?.runsPerSec.median),
        ms(t.runMsMedian),
        f(t.runMsP99.median, 1),
        t.medianOverCriticalPath === null ? '–' : `${f(t.medianOverCriticalPath * 100, 1)}%`,
        `${t.modelCalls.ok ? 'ok' : `✗ ${t.modelCalls.observed}/${t.modelCalls.expected}`}${t.failures ? ` ${t.failures} failed` : ''}`,
      ]);
    }
  }
  out.push(`\nThroughput, closed loop, N=8 (runs/s; run time ms)`);
  out.push(
    table(
      ['case', 'contender', 'runs/s', '×langgraph', '×floor', 'run median', 'run p99', 'median vs stages·L', 'calls'],
      tpRows,
    ),
  );

  const memRows = names
    .filter((n) => c[n]!.memory)
    .map((n) => {
      const m = c[n]!.memory!;
      return [
        n,
        `${m.runs} runs, L=${m.latencyMs}ms, N=${m.fanOut}`,
        kb(m.heapPerRun),
        kb(m.rssPerRun),
        ratio(m.heapPerRun, c.langgraph?.memory?.heapPerRun),
        ratio(m.heapPerRun, c.floor?.memory?.heapPerRun),
        `${m.callsInFlightAtPeak}/${m.runs * m.fanOut}`,
        `${kb(m.atMostInFlight.heapPerRun)} (${m.atMostInFlight.callsInFlight} calls)`,
        `${m.completed}/${m.runs}`,
      ];
    });
  out.push('\nMemory per in-flight run (peak after GC − baseline, ÷ runs)');
  out.push(
    table(
      [
        'contender',
        'held open',
        'heap/run',
        'RSS/run',
        'heap ÷langgraph',
        'heap ÷floor',
        'calls in flight at peak',
        'heap/run at most calls in flight',
        'completed',
      ],
      memRows,
    ),
  );

  const leakRows = names
    .filter((n) => c[n]!.leak)
    .map((n) => {
      const l = c[n]!.leak!;
      const first = l.samples[0];
      const last = l.samples.at(-1);
      return [
        n,
        `${l.runs - (l.warmupRuns ?? 0)} after ${l.warmupRuns ?? '?'}`,
        f(l.slopeBytesPerRun, 1),
        `${(l.growthBytes / 1024 / 1024).toFixed(2)} MB`,
        f(l.rssSlopeBytesPerRun, 0),
        first && last ? `${(first.heapUsed / 1048576).toFixed(1)} → ${(last.heapUsed / 1048576).toFixed(1)} MB` : '–',
      ];
    });
  out.push('\nHeap after GC across sequential runs (L=0, N=8)');
  out.push(
    table(
      ['contender', 'runs', 'heap slope B/run', 'heap growth after warm-up', 'RSS slope B/run', 'heap first → last'],
      leakRows,
    ),
  );

  const feRows = names
    .filter((n) => c[n]!.firstEvent)
    .map((n) => {
      const e = c[n]!.firstEvent!;
      return [n, `L=${e.latencyMs} N=${e.fanOut}`, ms(e.firstEventMs)];
    });
  if (feRows.length) {
    out.push('\nTime to first event (ms)');
    out.push(table(['contender', 'case', 'first event'], feRows));
  }

  out.push('\nChecks');
  for (const s of results.checks.sameAnswer) {
    out.push(
      `  same answer at N=${s.fanOut}: ${s.equal ? 'yes' : 'NO'} (${Object.entries(s.fingerprints)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
    );
  }
  for (const m of results.checks.modelCalls) out.push(`  ${m}`);
  for (const name of names) for (const e of c[name]!.errors) out.push(`  ${name}: ERROR ${e.split('\n')[0]}`);

  if (results.goals.length) {
    out.push('\nGoals (issues #8 and #32)');
    out.push(
      table(
        ['goal', 'contender', 'measured', 'met'],
        results.goals.map((g) => [g.goal, g.contender, g.measured, g.met === null ? 'n/a' : g.met ? 'yes' : 'NO']),
      ),
    );
  }
  return out.join('\n');
}

/** Cross-contender checks: same answer per fan-out, model calls as expected. */
export function buildChecks(contenders: Record<string, ContenderResults>): BenchResults['checks'] {
  const fanOuts = [...new Set(Object.values(contenders).flatMap((c) => (c.overhead ?? []).map((o) => o.fanOut)))];
  const sameAnswer = fanOuts.map((fanOut) => {
    const fingerprints: Record<string, string> = {};
    for (const [name, c] of Object.entries(contenders)) {
      const o =
        c.overhead?.find((x) => x.fanOut === fanOut && x.latencyMs === 0) ??
        c.overhead?.find((x) => x.fanOut === fanOut);
      if (o)
        fingerprints[name] =
          o.outcome.fingerprint + (o.outcomeMismatches ? ` (${o.outcomeMismatches} runs differed)` : '');
    }
    return { fanOut, fingerprints, equal: new Set(Object.values(fingerprints)).size === 1 };
  });
  const modelCalls: string[] = [];
  for (const [name, c] of Object.entries(contenders)) {
    const bad = [
      ...(c.overhead ?? [])
        .filter((o) => !o.modelCalls.ok)
        .map(
          (o) =>
            `L=${o.latencyMs} N=${o.fanOut}: ${o.modelCalls.perRun.min}–${o.modelCalls.perRun.max} calls/run, expected ${o.modelCalls.expected}`,
        ),
      ...(c.throughput ?? [])
        .filter((t) => !t.modelCalls.ok)
        .map(
          (t) =>
            `throughput L=${t.latencyMs} K=${t.inFlight}: ${t.modelCalls.observed} calls, expected ${t.modelCalls.expected}`,
        ),
    ];
    modelCalls.push(
      bad.length ? `${name} model calls WRONG: ${bad.join('; ')}` : `${name}: model calls per run as expected`,
    );
  }
  return { sameAnswer, modelCalls };
}

/** The issue's goals, measured for each Parley variant present. */
export function buildGoals(contenders: Record<string, ContenderResults>): BenchResults['goals'] {
  const goals: Goal[] = [];
  const lg = contenders.langgraph;
  for (const [name, c] of Object.entries(contenders)) {
    if (!name.startsWith('parley')) continue;
    const o = c.overhead?.find((x) => x.latencyMs === 0 && x.fanOut === 8);
    if (o) {
      goals.push({
        goal: 'overhead ≤ 1 ms at L=0, N=8 (whole wall time, HTTP included)',
        contender: name,
        measured: `${f(o.overheadMs.median)} ms`,
        met: o.overheadMs.median <= 1,
      });
      const p = o.pairedFloor;
      if (p) {
        goals.push({
          goal: '… net of the floor (paired Δwall: the framework only)',
          contender: name,
          measured: `${f(p.wallOverFloorMs.median)} ms`,
          met: p.wallOverFloorMs.median <= 1,
        });
        goals.push({
          goal: '… net of the floor in CPU time (paired ΔCPU)',
          contender: name,
          measured: `${f(p.cpuOverFloorMs.median)} ms`,
          met: p.cpuOverFloorMs.median <= 1,
        });
      }
      const lgO = lg?.overhead?.find((x) => x.latencyMs === 0 && x.fanOut === 8);
      if (lgO) {
        const r = lgO.overheadMs.median / o.overheadMs.median;
        goals.push({
          goal: 'overhead ≥ 5× below LangGraph.js (L=0, N=8, whole wall)',
          contender: name,
          measured: `${f(r)}× below`,
          met: r >= 5,
        });
        const lp = lgO.pairedFloor;
        if (p && lp) {
          const rn = lp.wallOverFloorMs.median / p.wallOverFloorMs.median;
          goals.push({
            goal: '… net of the floor (paired Δwall)',
            contender: name,
            measured: `LangGraph ${f(lp.wallOverFloorMs.median)} ms vs ${f(p.wallOverFloorMs.median)} ms`,
            met: p.wallOverFloorMs.median <= 0 || rn >= 5,
          });
        }
      }
    }
    goals.push(...issue32Goals(name, c, contenders));
    const t = c.throughput?.find((x) => x.latencyMs === 50 && x.inFlight === 1000);
    if (t && t.medianOverCriticalPath !== null) {
      goals.push({
        goal: 'L=50, 1,000 in flight: median run ≤ 1.10 × critical path',
        contender: name,
        measured: `${f(t.runMsMedian.median, 1)} ms (+${f(t.medianOverCriticalPath * 100, 1)}%)`,
        met: t.medianOverCriticalPath <= 0.1,
      });
    }
    if (c.memory) {
      goals.push({
        goal: 'memory per in-flight run ≤ 50 KB (heap)',
        contender: name,
        measured: kb(c.memory.heapPerRun),
        met: c.memory.heapPerRun <= 50 * 1024,
      });
      goals.push({
        goal: 'memory per in-flight run ≤ 50 KB (RSS)',
        contender: name,
        measured: kb(c.memory.rssPerRun),
        met: c.memory.rssPerRun <= 50 * 1024,
      });
    }
    if (c.leak) {
      // "No growth": under 64 bytes kept per run, i.e. < 640 KB over 10,000 runs (GC noise is larger).
      goals.push({
        goal: `no heap growth across ${c.leak.runs - (c.leak.warmupRuns ?? 0)} runs after warm-up (slope < 64 B/run)`,
        contender: name,
        measured: `${f(c.leak.slopeBytesPerRun, 1)} B/run`,
        met: c.leak.slopeBytesPerRun < 64,
      });
      // Issue 47: what the runs keep, after V8 has compiled what they call (scenarios/leak.ts).
      goals.push({
        goal: 'heap growth over the runs after warm-up < 0.5 MB',
        contender: name,
        measured: `${(c.leak.growthBytes / 1024 / 1024).toFixed(2)} MB over ${c.leak.runs - (c.leak.warmupRuns ?? 0)} runs`,
        met: c.leak.growthBytes < 0.5 * 1024 * 1024,
      });
    }
  }
  return goals;
}

/**
 * Issue 32: paired ΔCPU ≤ 0.5× and throughput (100 in flight) ≥ 1.5× LangGraph.js's, against LangGraph.js
 * without a checkpointer (as the goal is written) and, when it ran, with a durable one (langgraph-durable).
 */
function issue32Goals(name: string, c: ContenderResults, contenders: Record<string, ContenderResults>): Goal[] {
  const goals: Goal[] = [];
  const dcpu = (r: ContenderResults | undefined, l: number) =>
    r?.overhead?.find((x) => x.latencyMs === l && x.fanOut === 8)?.pairedFloor?.cpuOverFloorMs.median;
  const rate = (r: ContenderResults | undefined, l: number) =>
    r?.throughput?.find((x) => x.latencyMs === l && x.inFlight === 100)?.runsPerSec.median;
  for (const against of ['langgraph', 'langgraph-durable']) {
    const lg = contenders[against];
    if (!lg) continue;
    for (const l of [0, 50]) {
      const own = dcpu(c, l);
      const theirs = dcpu(lg, l);
      if (own !== undefined && theirs !== undefined && theirs > 0)
        goals.push({
          goal: `paired ΔCPU ≤ 0.5× ${against}'s (L=${l}, N=8)`,
          contender: name,
          measured: `${f(own)} vs ${f(theirs)} ms (${f(own / theirs)}×)`,
          met: own / theirs <= 0.5,
        });
      const ownRate = rate(c, l);
      const theirRate = rate(lg, l);
      if (ownRate !== undefined && theirRate !== undefined && theirRate > 0)
        goals.push({
          goal: `throughput ≥ 1.5× ${against}'s (L=${l}, 100 in flight)`,
          contender: name,
          measured: `${f(ownRate, 1)} vs ${f(theirRate, 1)} runs/s (${f(ownRate / theirRate)}×)`,
          met: ownRate / theirRate >= 1.5,
        });
    }
  }
  goals.push(...issue47Goals(name, c, contenders.floor, dcpu, rate));
  return goals;
}

/** Issue 47, toward the floor: a run should cost what its model calls cost. */
function issue47Goals(
  name: string,
  c: ContenderResults,
  floor: ContenderResults | undefined,
  dcpu: (r: ContenderResults | undefined, l: number) => number | undefined,
  rate: (r: ContenderResults | undefined, l: number) => number | undefined,
): Goal[] {
  const goals: Goal[] = [];
  const own = dcpu(c, 0);
  if (own !== undefined)
    goals.push({
      goal: 'paired ΔCPU over the floor ≤ 3 ms (L=0, N=8)',
      contender: name,
      measured: `${f(own)} ms`,
      met: own <= 3,
    });
  for (const l of [0, 50]) {
    const ownRate = rate(c, l);
    const floorRate = rate(floor, l);
    if (ownRate !== undefined && floorRate !== undefined && floorRate > 0)
      goals.push({
        goal: `throughput ≥ 0.9× the floor's (L=${l}, 100 in flight)`,
        contender: name,
        measured: `${f(ownRate, 1)} vs ${f(floorRate, 1)} runs/s (${f(ownRate / floorRate)}×)`,
        met: ownRate / floorRate >= 0.9,
      });
  }
  return goals;
}
