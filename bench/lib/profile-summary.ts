/**
 * A V8 CPU profile summed by part of the system or by source folder (bench/cpu-profile.ts prints it,
 * bench/profile-gap.ts compares Parley's with the floor's).
 *
 * - by part: walking a sample's stack from the leaf up, the first frame that belongs to a named part wins,
 *   so a `JSON.stringify` or an LMDB put is charged to whoever called it (the run store, the thread store…).
 * - by folder: a sample goes to the folder of the nearest frame under src/ (e.g. `src/graph/durable`), so
 *   the openai SDK and undici under Parley's model client count for `src/llm`; a sample with no src/ frame
 *   on its stack goes to its leaf's package (`node_modules/undici`, `bench/`, `node:internal`, `(gc)`).
 * Only the sampled thread (the main JavaScript thread) is in a profile: Kuzu's and LMDB's native threads
 * are not (bench/run-cpu.ts counts them).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface CallFrame {
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
}

/** The parts, in the order a frame is tested. */
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
    (f) => /src\/graph\/(usage|spending|metered-model|ledger|call-budget)|src\/llm\/prices/.test(f.url),
  ],
  ['events (event log, consumers)', (f) => /src\/graph\/(run-event-log|events|run\/event)/.test(f.url)],
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

function partOf(stack: CallFrame[]): string {
  const match = (parts: typeof PARTS) => {
    for (const frame of stack) for (const [name, test] of parts) if (test(frame, stack)) return name;
    return undefined;
  };
  return match(PARTS) ?? match(FALLBACK) ?? 'other (Node internals, native)';
}

/** `src/graph/durable` for a frame in src/graph/durable/persist-events.ts; a package or kind otherwise. */
function placeOf(f: CallFrame): string | undefined {
  const src = /\/(src\/.*)$/.exec(f.url);
  if (src) return dirname(src[1]!);
  return undefined;
}
function leafPlace(f: CallFrame): string {
  if (f.functionName === '(garbage collector)') return '(gc)';
  if (f.functionName === '(idle)') return 'idle';
  if (f.functionName === '(program)') return '(program)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f.url);
  if (pkg) return `node_modules/${pkg[1]}`;
  if (/\/bench\//.test(f.url)) return 'bench/';
  if (/undici/.test(f.url)) return 'node:undici (fetch)';
  if (f.url.startsWith('node:')) return 'node:internal';
  return '(native, no caller in src/)';
}
function folderOf(stack: CallFrame[]): string {
  const leaf = stack[0]!;
  const special = leafPlace(leaf);
  if (special === '(gc)' || special === 'idle' || special === '(program)') return special;
  for (const f of stack) {
    const place = placeOf(f);
    if (place) return place;
  }
  return special;
}

export type Grouping = 'part' | 'folder' | 'function';

export function profilesIn(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(path, f));
}

/** Microseconds of samples per group; 'idle' is its own group. */
export function summarize(files: string[], by: Grouping): Map<string, number> {
  const out = new Map<string, number>();
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const groupOf = new Map<number, string>();
    const classify = (id: number): string => {
      const cached = groupOf.get(id);
      if (cached) return cached;
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(nodes.get(at)!.callFrame);
      const f = stack[0]!;
      const group =
        by === 'part'
          ? partOf(stack)
          : by === 'folder'
            ? folderOf(stack)
            : f.functionName === '(idle)'
              ? 'idle'
              : `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules|bench)\//, '$1/')}:${f.lineNumber + 1}`;
      groupOf.set(id, group);
      return group;
    };
    profile.samples.forEach((id, i) => {
      const group = classify(id);
      out.set(group, (out.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
  }
  return out;
}
