/**
 * Reporter added when PARLEY_TEST_TIMING is set (vitest.config.ts, `npm run test:timing`): where the suite's
 * time goes, per file. Writes test-results/timing.json (one row per file: project, wall time from start to
 * end as the main process saw it, vitest's breakdown of it (setup file, import and collection, tests and
 * hooks), CPU from test/support/timing-cpu.ts, test counts) and prints the slowest files and the sums per
 * project. docs/testing.md, "Where the time goes", reads these figures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

interface Row {
  file: string;
  project: string;
  wallMs: number;
  prepareMs: number;
  setupMs: number;
  importMs: number;
  testsMs: number;
  cpuMs: number;
  childCpuMs: number;
  tests: number;
  skipped: number;
  failed: number;
}

// PARLEY_TEST_TIMING=1 writes the default file; any other value is the path to write.
const chosen = process.env.PARLEY_TEST_TIMING;
const OUT = chosen && chosen !== '1' ? chosen : join(import.meta.dirname, '../../test-results/timing.json');

export default class TimingReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly rows: Row[] = [];
  private runStart = Date.now();

  onTestRunStart(): void {
    this.runStart = Date.now();
  }

  onTestModuleQueued(module: TestModule): void {
    this.started.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const meta = module.meta();
    let tests = 0;
    let skipped = 0;
    let failed = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'skipped') skipped += 1;
      else tests += 1;
      if (state === 'failed') failed += 1;
    }
    this.rows.push({
      file: relative(process.cwd(), module.moduleId),
      project: module.project.name,
      wallMs: Date.now() - (this.started.get(module.moduleId) ?? Date.now()),
      prepareMs: Math.round(d.prepareDuration + d.environmentSetupDuration),
      setupMs: Math.round(d.setupDuration),
      importMs: Math.round(d.collectDuration),
      testsMs: Math.round(d.duration),
      cpuMs: meta.cpuMs ?? 0,
      childCpuMs: meta.childCpuMs ?? 0,
      tests,
      skipped,
      failed,
    });
  }

  onTestRunEnd(): void {
    const totalMs = Date.now() - this.runStart;
    mkdirSync(join(OUT, '..'), { recursive: true });
    writeFileSync(OUT, JSON.stringify({ totalMs, rows: this.rows }, null, 2));
    const sum = (rows: Row[], key: keyof Row) => rows.reduce((s, r) => s + (r[key] as number), 0);
    const s = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
    const line = (name: string, rows: Row[]) =>
      `${name.padEnd(60)} ${s(sum(rows, 'wallMs'))} ${s(sum(rows, 'importMs'))} ${s(sum(rows, 'testsMs'))} ${s(sum(rows, 'cpuMs') + sum(rows, 'childCpuMs'))} ${String(sum(rows, 'tests')).padStart(5)}`;
    const out = [`\n${'file (s)'.padEnd(60)}    wall  import   tests     cpu tests`];
    for (const row of [...this.rows].sort((a, b) => b.wallMs - a.wallMs).slice(0, 25)) out.push(line(row.file, [row]));
    out.push('');
    for (const project of [...new Set(this.rows.map((r) => r.project))])
      out.push(
        line(
          `project ${project}`,
          this.rows.filter((r) => r.project === project),
        ),
      );
    out.push(line('all files', this.rows));
    out.push(`run: ${s(totalMs)} s wall; ${relative(process.cwd(), OUT)}`);
    console.log(out.join('\n'));
  }
}
