import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EDGES, isEdge } from '../../../src/graph/run/edges.ts';
import { NODES } from '../../../src/graph/nodes/index.ts';

describe('the edge table', () => {
  it.each(['engine.md', 'architecture.md'])('is the one docs/%s draws, row for row', (name) => {
    const doc = readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');
    const rows = Object.fromEntries(
      [...doc.matchAll(/^\| `([a-z_]+)` \| ((?:`[a-z_]+`(?:, )?)+) \|$/gm)].map((m) => [
        m[1],
        [...m[2]!.matchAll(/`([a-z_]+)`/g)].map((n) => n[1]),
      ]),
    );
    expect(rows).toEqual(EDGES);
  });

  it('has a node function for every node, and only edges between nodes it knows', () => {
    expect(Object.keys(NODES).sort()).toEqual(Object.keys(EDGES).sort());
    for (const next of Object.values(EDGES).flat()) expect(next === 'end' || next in NODES).toBe(true);
    expect(isEdge('router', 'dispatcher')).toBe(true);
    expect(isEdge('memory', 'end')).toBe(false);
  });
});
