/**
 * What deferring execution-memory writes saves (durable/record-end.ts):
 * `node --expose-gc --import tsx bench/record-defer.ts [--runs 300] [--gap 12] [--defer 0,100,250,500] [--rounds 2]`.
 * Records `runs` run records of 8 steps on a Kuzu database file, one every `gap` ms (runs finishing one
 * after another, as the benchmark's sequential runs do), with each `defer` in turn (alternating, `rounds`
 * times), and prints the process's CPU per record (all threads: Kuzu's own included) and the write
 * transactions per record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openKuzuStore } from '../src/knowledge/kuzu/store.ts';
import type { RunRecord } from '../src/knowledge/store.ts';
import { run, specialist, step } from '../test/support/records.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '300' },
    gap: { type: 'string', default: '12' },
    defer: { type: 'string', default: '0,100,250,500' },
    rounds: { type: 'string', default: '2' },
  },
});
const RUNS = Number(values.runs);
const GAP = Number(values.gap);

const specialists = Array.from({ length: 4 }, (_, i) =>
  specialist(`spec-${i}`, `Specialist ${i}`, {
    domains: [`domain-${i}`],
    prompt: `You are specialist ${i}.`,
    sourceId: 'skills:bench',
  }),
);

/** The benchmark workload's record: the same query every time, 8 steps over 4 specialists, a reused team. */
function record(i: number, tag: string): RunRecord {
  const steps = Array.from({ length: 8 }, (_, s) =>
    step(`s${s}`, `spec-${s % 4}`, {
      objective: `objective ${s} of the workload`,
      output: `output of step ${s} `.repeat(20),
      durationMs: 3,
      tokens: 120,
      costUsd: 0.0001,
    }),
  );
  return run('Plan the quarterly review of the sales data in eight parts', steps, {
    id: `${tag}-${i}`,
    threadId: `${tag}-${i}`,
    protocol: 'bench',
    callerId: 'bench',
    startedAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    durationMs: 12,
    answer: 'the answer '.repeat(100),
    tokens: 1200,
    costUsd: 0.001,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), 'parley-defer-'));
const store = await openKuzuStore({ path: join(dir, 'knowledge.kuzu') });
try {
  await store.upsertSpecialists(specialists);
  // Warm-up: the team exists and the statements are prepared.
  for (let i = 0; i < 20; i++) await store.recordRun(record(i, 'warm'));
  const defers = values.defer.split(',').map(Number);
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const deferMs of defers) {
      globalThis.gc?.();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const written: Promise<void>[] = [];
      for (let i = 0; i < RUNS; i++) {
        written.push(store.recordRun(record(i, `r${round}-d${deferMs}`), { deferMs }));
        await sleep(GAP);
      }
      await Promise.all(written);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      console.log(
        `defer ${String(deferMs).padStart(4)} ms: CPU ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(2)} ms per record ` +
          `(${RUNS} records, one every ${GAP} ms, ${(wall / 1000).toFixed(1)} s, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`,
      );
    }
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
