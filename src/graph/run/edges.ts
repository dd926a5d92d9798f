/**
 * The root graph's edges, in one table: for each L0 node, the nodes it may hand the run to ('end'
 * stops the loop). Each node's return type is its row (`Next<'router'>`), so a node that names a node
 * not in its row does not compile, and the engine's loop refuses one at run time. docs/engine.md draws
 * the graph from this table. The node functions are bound to their names in nodes/index.ts.
 */
import type { NodeName } from './events.ts';
import type { RunUpdate } from './state.ts';

export const EDGES = {
  usage_guard: ['router'],
  router: ['direct_answer', 'council', 'dispatcher', 'end'],
  direct_answer: ['end'],
  council: ['end'],
  dispatcher: ['memory', 'research_joiner', 'execution_joiner', 'verifier', 'planner'],
  memory: ['dispatcher'],
  research_joiner: ['dispatcher'],
  execution_joiner: ['dispatcher'],
  verifier: ['synthesizer', 'dispatcher', 'planner'],
  planner: ['dispatcher', 'verifier', 'synthesizer'],
  synthesizer: ['end'],
} as const satisfies Record<NodeName, readonly (NodeName | 'end')[]>;

/** Where the loop starts. */
export const FIRST_NODE: NodeName = 'usage_guard';

/** The nodes node `N` may go to next. */
export type Next<N extends NodeName> = (typeof EDGES)[N][number];

/**
 * What a node returns: the next node (`Decision<Next<'router'>>`: one of the router's edges) and what it
 * decided, which the engine applies.
 */
export interface Decision<To extends NodeName | 'end' = NodeName | 'end'> {
  next: To;
  update?: RunUpdate;
}

/** True when `next` is an edge out of `node`. */
export function isEdge(node: NodeName, next: string): next is Next<NodeName> {
  return (EDGES[node] as readonly string[]).includes(next);
}
