/**
 * The folder boundaries of src/, enforced (issue #13 §2): every relative import of every src/**.ts
 * file, read with TypeScript's own pre-processor (static, `export … from`, type-only and dynamic
 * imports alike), checked against the allowed arrows of docs/architecture.md, and for cycles between
 * folders and between files. A node is a folder
 * under src/ (graph, knowledge, …) or a root file (config.ts, server.ts, …). A failure names the
 * importing file and the import as written. Inside graph/, its rooms (folders and root files) stand in
 * the one layer order written in the header of src/graph/engine.ts, and every import runs down it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** One relative import: `file` imports `specifier`, which resolves to `target` (both relative to src/, with /). */
interface Import {
  file: string;
  specifier: string;
  target: string;
}

/** A folder under src/, or the root file itself. */
const nodeOf = (path: string): string => path.split('/')[0]!;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const toSrcPath = (path: string) => relative(SRC, path).split(sep).join('/');

function importsOf(path: string): Import[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith('.'))
    .map(({ fileName }) => ({
      file: toSrcPath(path),
      specifier: fileName,
      target: toSrcPath(resolve(dirname(path), fileName)).replace(/\.js$/, '.ts'),
    }));
}

const FILES = sourceFiles(SRC);
const IMPORTS: Import[] = FILES.flatMap(importsOf);
/** Imports that cross from one node into another. */
const CROSSING = IMPORTS.filter((i) => nodeOf(i.file) !== nodeOf(i.target));

const show = (i: Import) => `src/${i.file} imports '${i.specifier}'`;

interface Rule {
  name: string;
  /** The node whose imports the rule checks. */
  from: string;
  /** Targets (paths relative to src/) it may not import. */
  forbids: (target: string) => boolean;
}

const under =
  (...folders: string[]) =>
  (target: string) =>
    folders.some((folder) => target.startsWith(`${folder}/`));

const RULES: Rule[] = [
  { name: 'the engine knows no protocol: graph/ never imports protocols/', from: 'graph', forbids: under('protocols') },
  {
    name: "the store's records are its own (knowledge/records.ts): knowledge/ never imports graph/",
    from: 'knowledge',
    forbids: under('graph'),
  },
  {
    name: 'caller identity is the bottom layer: identity/ imports nothing of ours',
    from: 'identity',
    forbids: (target) => nodeOf(target) !== 'identity',
  },
  {
    name: 'the run store is a bottom layer: store/ imports only identity/, log.ts and config-error.ts',
    from: 'store',
    forbids: (target) =>
      !['store', 'identity'].includes(nodeOf(target)) && !['log.ts', 'config-error.ts'].includes(target),
  },
  {
    name: 'adapters reach the engine only through graph/contract.ts, never knowledge/, llm/ or tools/',
    from: 'protocols',
    forbids: (target) =>
      (target.startsWith('graph/') && target !== 'graph/contract.ts') || under('knowledge', 'llm', 'tools')(target),
  },
  {
    name: 'evaluation is a client of the engine: eval/ reaches graph/ only through graph/contract.ts',
    from: 'eval',
    forbids: (target) => target.startsWith('graph/') && target !== 'graph/contract.ts',
  },
];

/**
 * graph/'s layers, top to bottom, as the header of src/graph/engine.ts writes them: the lines after
 * "graph/ in layers, top to bottom", rooms separated by '>' (a layer of two rooms names both).
 */
function graphLayers(): string[][] {
  const lines = readFileSync(join(SRC, 'graph/engine.ts'), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.includes('graph/ in layers, top to bottom'));
  const order: string[] = [];
  for (const line of lines.slice(at + 1)) {
    const text = /^ \* {3}(\S.*)$/.exec(line)?.[1];
    if (!text) break;
    order.push(text);
  }
  return order
    .join(' ')
    .split('>')
    .map((layer) => layer.trim().split(/\s+/));
}

/** A room of graph/: its folder (`run/`) or its root file (`engine.ts`). */
const graphRoom = (path: string): string => {
  const [, first, rest] = path.split('/');
  return rest === undefined ? first! : `${first}/`;
};

/**
 * Groups of nodes that reach each other through imports (Tarjan's strongly connected components):
 * any group of two or more is a cycle. Two folders importing each other is the smallest one.
 */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return groups;
}

/** The arrows from `from` into the rest of the group, each with the imports that make it (a few, then a count). */
function arrowsWithin(from: string, group: string[]): string[] {
  return group
    .filter((to) => to !== from)
    .flatMap((to) => {
      const made = [...new Set(CROSSING.filter((i) => nodeOf(i.file) === from && nodeOf(i.target) === to).map(show))];
      if (made.length === 0) return [];
      const listed = made.length <= 3 ? made.join('; ') : `${made.slice(0, 2).join('; ')} and ${made.length - 2} more`;
      return [`  ${from} -> ${to}: ${listed}`];
    });
}

describe('folder boundaries of src/', () => {
  it('reads the imports it checks', () => {
    // A rule over nothing passes vacuously: make sure the reader sees the engine's real arrows.
    expect(CROSSING.some((i) => nodeOf(i.file) === 'graph' && nodeOf(i.target) === 'knowledge')).toBe(true);
    expect(CROSSING.some((i) => nodeOf(i.file) === 'protocols' && nodeOf(i.target) === 'graph')).toBe(true);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      const violations = CROSSING.filter((i) => nodeOf(i.file) === rule.from && rule.forbids(i.target)).map(show);
      expect(violations, rule.name).toEqual([]);
    });
  }

  it("graph/'s rooms import only the layers below theirs (the order in src/graph/engine.ts's header)", () => {
    const layers = graphLayers();
    const rankOf = new Map(layers.flatMap((layer, rank) => layer.map((room) => [room, rank] as const)));
    // Every room of graph/ stands in the order, once; a room the order names exists.
    const rooms = [
      ...new Set(
        FILES.map(toSrcPath)
          .filter((p) => nodeOf(p) === 'graph')
          .map(graphRoom),
      ),
    ].sort();
    expect(layers.length, 'layers read from the header').toBeGreaterThan(5);
    expect([...rankOf.keys()].sort(), "graph/'s rooms as the header names them").toEqual(rooms);
    expect(rankOf.size, 'a room named twice').toBe(layers.flat().length);
    const inside = IMPORTS.filter((i) => nodeOf(i.file) === 'graph' && nodeOf(i.target) === 'graph');
    expect(inside.length).toBeGreaterThan(300);
    const upward = inside
      .filter((i) => graphRoom(i.file) !== graphRoom(i.target))
      .filter((i) => rankOf.get(graphRoom(i.file))! >= rankOf.get(graphRoom(i.target))!)
      .map((i) => `${show(i)}: ${graphRoom(i.file)} does not stand above ${graphRoom(i.target)}`);
    expect(upward, 'imports that run back up graph/').toEqual([]);
  });

  it('no two folders (or root files) import each other, directly or around a loop', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of CROSSING) {
      const from = nodeOf(i.file);
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(nodeOf(i.target));
    }
    const found = cycles(edges).map(
      (group) => `cycle among ${group.join(', ')}:\n${group.flatMap((from) => arrowsWithin(from, group)).join('\n')}`,
    );
    expect(found, 'folder cycles').toEqual([]);
  });

  it('no two files import each other, directly or around a loop (type-only imports too)', () => {
    // Type-only imports count: a type that two files need belongs in a third file both read, so that
    // each file can be read (and moved) knowing only what it imports.
    expect(IMPORTS.length).toBeGreaterThan(500);
    const edges = new Map<string, Set<string>>();
    for (const i of IMPORTS) {
      if (!edges.has(i.file)) edges.set(i.file, new Set());
      edges.get(i.file)!.add(i.target);
    }
    const found = cycles(edges).map((group) => {
      const arrows = IMPORTS.filter((i) => group.includes(i.file) && group.includes(i.target)).map(show);
      return `cycle among ${group.join(', ')}:\n  ${[...new Set(arrows)].join('\n  ')}`;
    });
    expect(found, 'import cycles between files').toEqual([]);
  });
});
