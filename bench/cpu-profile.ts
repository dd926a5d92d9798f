/**
 * Where a benchmark's CPU goes: `npx tsx bench/cpu-profile.ts <file.cpuprofile | dir> [--top 25]`.
 *
 * Reads V8 CPU profiles (what `BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" npm run bench -- …`
 * leaves, one per worker process) and charges every sample to one part of the system: walking the
 * sample's stack from the leaf up, the first frame that belongs to a named part wins, so a
 * `JSON.stringify` or an LMDB put is charged to whoever called it (the run store, the thread store…),
 * and the openai SDK and Node's HTTP client to themselves. Prints the share of each part, then the
 * heaviest functions by self time. Only this process's JavaScript thread is sampled: Kuzu's and
 * LMDB's native threads are not in a profile (the bench's CPU column counts them).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The parts, in the order a frame is tested; `undefined` lets the walk go on to the caller. */
const PARTS: [string, (f: CallFrame, stack: CallFrame[]) => boolean][] = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  [
    'knowledge graph: recordRun (execution-memory write)',
    (f, stack) =>
      /src\/knowledge\//.test(f.url) && stack.some((s) => /recordRun|flushRecords|writeRun/.test(s.functionName)),
  ],
  ['knowledge graph: reads (registry, memory, team configs)', (f) => /src\/knowledge\//.test(f.url)],
  ['learning (src/graph/learning)', (f) => /src\/graph\/learning\//.test(f.url)],
  ['run store (events, checkpoints, records)', (f) => /src\/store\/runs\/|src\/graph\/durable\//.test(f.url)],
  ['thread store (turns, history)', (f) => /src\/store\/threads\/|thread-turns|thread-history/.test(f.url)],
  ['context-budget pass', (f) => /src\/graph\/context-budget/.test(f.url)],
  [
    'usage metering (meter, ledger, prices)',
    (f) => /src\/graph\/(usage|metered-model|ledger|call-budget)|src\/llm\/prices/.test(f.url),
  ],
  ['events (event log, consumers)', (f) => /src\/graph\/(run-event-log|events)\.ts/.test(f.url)],
  [
    'prompts (building, rendering)',
    (f) => /src\/graph\/(prompts|user-content)|src\/graph\/.*prompt|src\/prompts\//.test(f.url),
  ],
  ['openai SDK', (f) => /node_modules\/openai\//.test(f.url)],
  [
    'HTTP client (fetch/undici, sockets)',
    (f) =>
      /undici|node:internal\/(deps\/undici|http|net|stream|streams)|node:(http|net)|node:internal\/webstreams/.test(
        f.url,
      ),
  ],
  ["Parley's model client (src/llm)", (f) => /src\/llm\//.test(f.url)],
  ['engine: nodes, scheduler, rest of src/graph', (f) => /src\/graph\//.test(f.url)],
  ['rest of src/', (f) => /\/src\//.test(f.url)],
  ['LangGraph / LangChain', (f) => /node_modules\/@langchain\//.test(f.url)],
  ['bench harness (bench/, floor contender)', (f) => /\/bench\//.test(f.url)],
  [
    'module loading (tsx, esbuild, node:internal/modules)',
    (f) => /node_modules\/(tsx|esbuild)\/|node:internal\/modules/.test(f.url),
  ],
];

/** Parts of work no Parley frame asked for directly (a commit started from a timer, a native callback). */
const FALLBACK: typeof PARTS = [
  ['LMDB commits (run store, thread store)', (f) => /node_modules\/(lmdb|msgpackr|ordered-binary)\//.test(f.url)],
  ['Kuzu (knowledge graph, native calls)', (f) => /node_modules\/kuzu\//.test(f.url)],
];

function profilesIn(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(path, f));
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
if (positionals.length === 0) {
  console.error('usage: npx tsx bench/cpu-profile.ts <file.cpuprofile | dir> [--top 25]');
  process.exit(2);
}

const byPart = new Map<string, number>();
const bySelf = new Map<string, number>();
let total = 0;
for (const file of positionals.flatMap(profilesIn)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map<number, string>();
  const classify = (id: number): string => {
    const cached = partOf.get(id);
    if (cached) return cached;
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(nodes.get(at)!.callFrame);
    const match = (parts: typeof PARTS) => {
      for (const frame of stack) for (const [name, test] of parts) if (test(frame, stack)) return name;
      return undefined;
    };
    const part = match(PARTS) ?? match(FALLBACK) ?? 'other (Node internals, native)';
    partOf.set(id, part);
    return part;
  };
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const part = classify(id);
    byPart.set(part, (byPart.get(part) ?? 0) + us);
    const f = nodes.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules|bench)\//, '$1/')}:${f.lineNumber + 1}`;
    bySelf.set(name, (bySelf.get(name) ?? 0) + us);
    total += us;
  });
}

const busy = total - (byPart.get('idle') ?? 0);
const pct = (us: number, of: number) => `${((100 * us) / of).toFixed(1)} %`;
console.log(`samples: ${(total / 1e6).toFixed(2)} s, of which not idle ${(busy / 1e6).toFixed(2)} s\n`);
console.log('part'.padEnd(58), 'ms'.padStart(9), 'of busy'.padStart(9));
for (const [part, us] of [...byPart].sort((a, b) => b[1] - a[1])) {
  if (part === 'idle') continue;
  console.log(part.padEnd(58), (us / 1000).toFixed(0).padStart(9), pct(us, busy).padStart(9));
}
console.log(`\nheaviest functions by self time (top ${values.top})`);
for (const [name, us] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  if (name.startsWith('(idle)')) continue;
  console.log((us / 1000).toFixed(0).padStart(7), pct(us, busy).padStart(7), ' ', name);
}
