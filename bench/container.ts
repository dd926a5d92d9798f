/**
 * The container image's footprint: `npm run bench:container` (docs/performance.md, "The container image").
 * Builds the images when their inputs changed (deploy/ci/build-images.sh), then prints the image's size, the
 * cold start of a container (from `podman run` to the first 200 from GET /health, through the published port)
 * on a fresh volume (schema creation, first ingestion) and on an existing one (a restart), and the resident
 * memory of the Parley process inside after --idle ms idle (VmRSS, as `npm run bench:startup` reads it).
 * Median, min and max of --runs starts each. The scripted model answers; podman must be there (root).
 * Options: --runs 3, --idle 1000.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { summarize } from './lib/stats.ts';
import { freePort } from '../test/support/free-port.ts';
import { IMAGES, answers, ensureImages, podman, podmanMissing, run, waitFor } from '../test/support/podman.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, idle: { type: 'string', default: '1000' } },
});
const runs = Number(values.runs);
const idleMs = Number(values.idle);
const missing = podmanMissing();
if (missing) {
  console.log(`bench:container: ${missing}`);
  process.exit(0);
}

/** VmRSS of the Parley process in the container (PID 1 is tini; Parley is the node process under it). */
async function parleyRssMb(name: string): Promise<number> {
  const script = 'for f in /proc/[0-9]*/status; do grep -q "^Name:.*node" $f && grep VmRSS $f; done | head -1';
  const line = await podman('exec', name, 'sh', '-c', script);
  return Number(/(\d+)\s*kB/.exec(line)![1]) / 1024;
}

interface Start {
  ms: number;
  rssMb: number;
}

async function start(name: string, volume: string): Promise<Start> {
  const port = await freePort();
  const started = Date.now();
  await podman(
    ...['run', '-d', '--name', name, '-p', `127.0.0.1:${port}:8787`, '-v', `${volume}:/var/lib/parley`],
    ...['-e', 'PARLEY_ALLOWED_HOSTS=bench.example.com', '-e', 'PARLEY_API_KEYS=bench-key', IMAGES.parley],
  );
  await waitFor('/health', () => answers(`http://127.0.0.1:${port}/health`), 120_000);
  const ms = Date.now() - started;
  await new Promise((r) => setTimeout(r, idleMs));
  const rssMb = await parleyRssMb(name);
  await podman('stop', '-t', '30', name);
  await podman('rm', name);
  return { ms, rssMb };
}

await ensureImages();
const sizeMb = Number(await podman('image', 'inspect', '--format', '{{.Size}}', IMAGES.parley)) / 1e6;
const load = [loadavg()[0]!.toFixed(1)];
const cases: Record<string, Start[]> = { fresh: [], existing: [] };
const volume = `parley-bench-${process.pid}`;
try {
  for (let i = 0; i < runs; i++) {
    const fresh = `${volume}-fresh-${i}`;
    cases.fresh!.push(await start(`${volume}-c`, fresh));
    await podman('volume', 'rm', fresh);
  }
  await start(`${volume}-c`, volume); // ingests once
  for (let i = 0; i < runs; i++) cases.existing!.push(await start(`${volume}-c`, volume));
} finally {
  await run('podman', ['rm', '-f', `${volume}-c`]);
  await run('podman', ['volume', 'rm', '-f', volume]);
}
load.push(loadavg()[0]!.toFixed(1));

console.log(`\n${IMAGES.parley}: ${sizeMb.toFixed(0)} MB · ${runs} starts per case · load ${load.join(' → ')}`);
console.log('case      to /health: median (min–max)    idle RSS: median (min–max)');
for (const [label, starts] of Object.entries(cases)) {
  const ms = summarize(starts.map((s) => s.ms));
  const rss = summarize(starts.map((s) => s.rssMb));
  console.log(
    `${label.padEnd(9)} ${`${ms.median.toFixed(0)} ms (${ms.min.toFixed(0)}–${ms.max.toFixed(0)})`.padEnd(31)} ` +
      `${rss.median.toFixed(0)} MB (${rss.min.toFixed(0)}–${rss.max.toFixed(0)})`,
  );
}
