/**
 * The order the suite's files start in (vitest.config.ts `sequence.sequencer`): longest first, so the last
 * minutes of a run are short files filling both workers, not one long file running alone (docs/testing.md,
 * "Where the time goes"). vitest's own order runs projects one after another by name and, on a fresh clone
 * (no results cache), files in the order found; `npm test` on CI is always a fresh clone.
 *
 * How long a file takes: this machine's last result from vitest's cache when there is one, else the
 * estimate in test/support/durations.json (from `npm run test:timing`, written back with
 * `npm run test:durations`), else a few seconds. A project whose files share a worker (`isolate: false`)
 * keeps its files together: the pool hands a shared worker on only to the next file in the queue, so
 * interleaving them with other projects' files would start a fresh worker (and import src/ again) per file.
 * Such a project goes where its longest file would; isolated files go one by one.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A file neither the cache nor durations.json knows (a new one): a few seconds, like most files. */
const UNKNOWN_MS = 3_000;

const ESTIMATES = new URL('./durations.json', import.meta.url);

/** durations.json: "project:path/from/root" → milliseconds. */
export function readEstimates(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(ESTIMATES, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

interface Block {
  key: number;
  files: { spec: TestSpecification; ms: number; failed: boolean }[];
}

export default class LongestFirst extends BaseSequencer {
  private readonly estimates = readEstimates();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const blocks = new Map<string, Block>();
    const single: Block[] = [];
    for (const spec of files) {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
      const cached = this.ctx.cache.getFileTestResults(key);
      const ms = cached?.duration ?? this.estimates[key] ?? UNKNOWN_MS;
      // A file that failed last time runs first, as vitest's own order does: the answer a developer waits for.
      const entry = { spec, ms, failed: Boolean(cached?.failed) };
      if (spec.project.config.isolate) {
        single.push({ key: entry.failed ? Infinity : ms, files: [entry] });
        continue;
      }
      let block = blocks.get(spec.project.name);
      if (!block) blocks.set(spec.project.name, (block = { key: 0, files: [] }));
      block.files.push(entry);
      block.key = Math.max(block.key, entry.failed ? Infinity : ms);
    }
    const byLongest = (a: { ms: number; failed: boolean }, b: { ms: number; failed: boolean }) =>
      Number(b.failed) - Number(a.failed) || b.ms - a.ms;
    for (const block of blocks.values()) block.files.sort(byLongest);
    return [...single, ...blocks.values()]
      .sort((a, b) => b.key - a.key)
      .flatMap((block) => block.files.map((f) => f.spec));
  }
}
