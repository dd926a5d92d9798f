/**
 * What a later heap snapshot holds that an earlier one of the same process did not:
 * `npx tsx bench/heap-diff.ts before.heapsnapshot after.heapsnapshot [--top 30] [--path 6]`
 * (snapshots from `bench/heap-growth.ts --snapshots DIR` or `bench/protocol-leak.ts --snapshots DIR`).
 *
 * V8 keeps an object's snapshot id for its life, so an id in "after" that is not in "before" is an object
 * allocated in between that survived. Prints (1) the net change per constructor (count and self size, like
 * DevTools' comparison view) and (2) where the new objects hang: every edge from an old object to a new one,
 * with the self size of the new objects reached first through it (new objects only), largest first, each
 * with a short retainer path of the old object so it can be named ("which Map, in which module").
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Graph {
  count: number;
  type: (n: number) => string;
  name: (n: number) => string;
  id: (n: number) => number;
  size: (n: number) => number;
  /** Edges of n: [edge index] into the flat arrays below. */
  firstEdge: Uint32Array;
  edgeTo: Uint32Array;
  edgeType: string[];
  edgeName: (e: number) => string;
  edgeTypeOf: (e: number) => string;
}

/** An index read that must hold (the snapshot's arrays are consistent). */
const at = (a: ArrayLike<number>, i: number): number => a[i] as number;

function load(file: string): Graph {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields, node_types, edge_fields, edge_types } = s.snapshot.meta;
  const nf = node_fields.length;
  const ef = edge_fields.length;
  const fieldAt = (fields: string[], f: string) => {
    const i = fields.indexOf(f);
    if (i < 0) throw new Error(`${file}: no ${f} in the snapshot's fields`);
    return i;
  };
  const [T, N, I, S, EC] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) => fieldAt(node_fields, f)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const [ET, EN, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => fieldAt(edge_fields, f)) as [
    number,
    number,
    number,
  ];
  const count = s.nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += at(s.nodes, n * nf + EC);
    firstEdge[n + 1] = e;
  }
  const edgeCount = s.edges.length / ef;
  const edgeTo = new Uint32Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) edgeTo[e] = at(s.edges, e * ef + ETO) / nf;
  const nodeTypes = node_types[0];
  const edgeTypes = edge_types[0];
  const edgeTypeOf = (e: number) => edgeTypes[at(s.edges, e * ef + ET)] ?? '?';
  return {
    count,
    type: (n) => nodeTypes[at(s.nodes, n * nf + T)] ?? '?',
    name: (n) => s.strings[at(s.nodes, n * nf + N)] ?? '?',
    id: (n) => at(s.nodes, n * nf + I),
    size: (n) => at(s.nodes, n * nf + S),
    firstEdge,
    edgeTo,
    edgeType: edgeTypes,
    edgeTypeOf,
    edgeName: (e) => {
      const t = edgeTypeOf(e);
      const v = at(s.edges, e * ef + EN);
      return t === 'element' || t === 'hidden' ? `[${v}]` : (s.strings[v] ?? '?');
    },
  };
}

const label = (g: Graph, n: number) => {
  const name = g.name(n);
  return `${g.type(n)}:${name.length > 60 ? `${name.slice(0, 60)}…` : name}`;
};

function byConstructor(g: Graph) {
  const m = new Map<string, { count: number; size: number }>();
  for (let n = 0; n < g.count; n++) {
    const k = label(g, n);
    const v = m.get(k) ?? { count: 0, size: 0 };
    v.count++;
    v.size += g.size(n);
    m.set(k, v);
  }
  return m;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, path: { type: 'string', default: '6' } },
});
const [beforeFile, afterFile] = positionals;
if (!beforeFile || !afterFile) throw new Error('usage: heap-diff.ts before.heapsnapshot after.heapsnapshot');
const TOP = Number(values.top);
const before = load(beforeFile);
const oldIds = new Set<number>();
for (let n = 0; n < before.count; n++) oldIds.add(before.id(n));
const beforeByCtor = byConstructor(before);
const g = load(afterFile);
const afterByCtor = byConstructor(g);

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
let total = 0;
const net = [...new Set([...beforeByCtor.keys(), ...afterByCtor.keys()])].map((k) => {
  const a = afterByCtor.get(k) ?? { count: 0, size: 0 };
  const b = beforeByCtor.get(k) ?? { count: 0, size: 0 };
  total += a.size - b.size;
  return { k, count: a.count - b.count, size: a.size - b.size };
});
net.sort((x, y) => Math.abs(y.size) - Math.abs(x.size));
const byType = new Map<string, number>();
for (const r of net) byType.set(r.k.split(':')[0]!, (byType.get(r.k.split(':')[0]!) ?? 0) + r.size);
console.log(`net self size: ${kb(total)}; nodes ${before.count} → ${g.count}`);
// "native" and "synthetic" nodes are outside V8's heap (heapUsed does not count them); "code" is V8's
// compiled code, bytecode and feedback, which shrinks and grows as the JIT settles.
console.log(
  `by node type: ${[...byType]
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .map(([t, b]) => `${t} ${kb(b)}`)
    .join(', ')}\n\nnet change by constructor:`,
);
for (const r of net.slice(0, TOP)) console.log(`  ${kb(r.size).padStart(10)}  ${String(r.count).padStart(7)}  ${r.k}`);

// Retainers of every node (weak edges do not retain).
const isNew = new Uint8Array(g.count);
for (let n = 0; n < g.count; n++) if (!oldIds.has(g.id(n))) isNew[n] = 1;
const retainerStart = new Uint32Array(g.count + 1);
for (let e = 0; e < g.edgeTo.length; e++) if (g.edgeTypeOf(e) !== 'weak') retainerStart[at(g.edgeTo, e) + 1]! += 1;
for (let n = 0; n < g.count; n++) retainerStart[n + 1]! += at(retainerStart, n);
const fill = retainerStart.slice(0, g.count);
const retainerEdge = new Uint32Array(at(retainerStart, g.count));
const retainerFrom = new Uint32Array(at(retainerStart, g.count));
for (let n = 0; n < g.count; n++)
  for (let e = at(g.firstEdge, n); e < at(g.firstEdge, n + 1); e++) {
    if (g.edgeTypeOf(e) === 'weak') continue;
    const to = at(g.edgeTo, e);
    const slot = at(fill, to);
    fill[to] = slot + 1;
    retainerEdge[slot] = e;
    retainerFrom[slot] = n;
  }

/** Follows the first strong retainer up from n, avoiding cycles, for a few steps. */
const pathUp = (n: number, steps: number) => {
  const seen = new Set([n]);
  const out: string[] = [];
  let cur = n;
  for (let i = 0; i < steps; i++) {
    let next = -1;
    let via = '';
    for (let r = at(retainerStart, cur); r < at(retainerStart, cur + 1); r++) {
      const from = at(retainerFrom, r);
      const t = g.edgeTypeOf(at(retainerEdge, r));
      if (seen.has(from) || t === 'shortcut') continue;
      next = from;
      via = g.edgeName(at(retainerEdge, r));
      break;
    }
    if (next < 0) break;
    out.push(`${via} ← ${label(g, next)}`);
    seen.add(next);
    cur = next;
  }
  return out.join('  ');
};

// Old → new edges; each new object is charged to the first such edge that reaches it through new objects.
const charged = new Uint8Array(g.count);
const groups = new Map<
  string,
  { size: number; count: number; edges: number; sample: number; kinds: Map<string, number> }
>();
for (let from = 0; from < g.count; from++) {
  if (isNew[from]) continue;
  for (let e = at(g.firstEdge, from); e < at(g.firstEdge, from + 1); e++) {
    const to = at(g.edgeTo, e);
    if (!isNew[to] || charged[to] || g.edgeTypeOf(e) === 'weak') continue;
    let size = 0;
    let count = 0;
    const kinds = new Map<string, number>();
    const stack = [to];
    charged[to] = 1;
    while (stack.length) {
      const n = stack.pop()!;
      size += g.size(n);
      count++;
      kinds.set(label(g, n), (kinds.get(label(g, n)) ?? 0) + g.size(n));
      for (let f = at(g.firstEdge, n); f < at(g.firstEdge, n + 1); f++) {
        const t = at(g.edgeTo, f);
        if (isNew[t] && !charged[t] && g.edgeTypeOf(f) !== 'weak') {
          charged[t] = 1;
          stack.push(t);
        }
      }
    }
    const edge = g.edgeTypeOf(e) === 'element' ? '[i]' : g.edgeName(e);
    const key = `${label(g, from)} —${edge}→ ${label(g, to)}   (${from} ${pathUp(from, 2)})`;
    const v = groups.get(key) ?? { size: 0, count: 0, edges: 0, sample: from, kinds: new Map<string, number>() };
    v.size += size;
    v.count += count;
    v.edges++;
    for (const [k, b] of kinds) v.kinds.set(k, (v.kinds.get(k) ?? 0) + b);
    groups.set(key, v);
  }
}

const sorted = [...groups.entries()].sort((a, b) => b[1].size - a[1].size);
console.log(`\nwhere new objects hang (old object —edge→ new object: new self size reached, objects, edges):`);
for (const [k, v] of sorted.slice(0, TOP)) {
  console.log(`  ${kb(v.size).padStart(10)}  ${String(v.count).padStart(6)}  ×${v.edges}  ${k}`);
  console.log(`              held by: ${pathUp(v.sample, Number(values.path))}`);
  const kinds = [...v.kinds].sort((a, b) => b[1] - a[1]).slice(0, 5);
  console.log(`              made of: ${kinds.map(([k, b]) => `${kb(b)} ${k}`).join(', ')}`);
}
