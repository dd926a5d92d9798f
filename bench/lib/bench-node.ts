/**
 * The Node the benchmark's jobs run on: the runtime Parley ships on (Node 24 LTS, docs/deployment.md), so
 * its figures are the ones users get. On Node 20 (end of life, still in `engines`) the same code spent more
 * CPU per run than on 24 for Parley and the floor alike (docs/performance.md, 2026-12-02 afternoon), so a
 * bench started from the machine's Node 20 runs its jobs on the Node 24 binary of `npm run runtime:node24`
 * when there is one, and says so. BENCH_NODE=current keeps the Node that started it; BENCH_NODE=/path one.
 */
import { spawnSync } from 'node:child_process';
import { node24 } from '../../test/support/node24.ts';

export interface BenchNode {
  /** The binary the jobs run on. */
  path: string;
  /** Its version (`v24.21.0`). */
  version: string;
  /** Why it is not the Node that started the bench, when it is not. */
  note?: string;
}

export function benchNode(env: NodeJS.ProcessEnv = process.env): BenchNode {
  const current: BenchNode = { path: process.execPath, version: process.version };
  const asked = env.BENCH_NODE;
  if (asked === 'current') return current;
  if (asked) {
    const version = spawnSync(asked, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    if (!version) throw new Error(`BENCH_NODE=${asked} is not a Node binary that runs`);
    return { path: asked, version, note: `BENCH_NODE=${asked}` };
  }
  if (process.versions.node.startsWith('24.')) return current;
  const shipped = node24();
  if (!shipped) {
    return {
      ...current,
      note: `Node ${process.version} is not the runtime Parley ships on (24): \`npm run runtime:node24\` installs it and the bench then runs on it`,
    };
  }
  const version = spawnSync(shipped, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return {
    path: shipped,
    version,
    note: `started on Node ${process.version}; the jobs run on ${version}, the runtime Parley ships on (BENCH_NODE=current keeps ${process.version})`,
  };
}
