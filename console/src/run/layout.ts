/**
 * Where each step sits: dagre's layered layout, left to right, over dependency and spawn edges. Only
 * the shape of the graph decides positions, so the layout is recomputed when a step or an edge is
 * added, not when a status changes.
 */
import dagre from '@dagrejs/dagre';
import type { StepView } from './run-view.ts';

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 84;

export interface LaidOutEdge {
  id: string;
  source: string;
  target: string;
  kind: 'depends' | 'spawned';
}

export function edgesOf(steps: StepView[]): LaidOutEdge[] {
  const ids = new Set(steps.map((s) => s.id));
  const edges: LaidOutEdge[] = [];
  for (const step of steps) {
    for (const dep of step.dependsOn)
      if (ids.has(dep)) edges.push({ id: `d:${dep}>${step.id}`, source: dep, target: step.id, kind: 'depends' });
    if (step.parentStepId && ids.has(step.parentStepId))
      edges.push({
        id: `s:${step.parentStepId}>${step.id}`,
        source: step.parentStepId,
        target: step.id,
        kind: 'spawned',
      });
  }
  return edges;
}

/** A key that changes only when the graph's shape does. */
export function shapeKey(steps: StepView[]): string {
  return steps.map((s) => `${s.id}<${s.dependsOn.join(',')}^${s.parentStepId ?? ''}`).join('|');
}

export function layout(steps: StepView[], edges: LaidOutEdge[]): Map<string, { x: number; y: number }> {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56, marginx: 16, marginy: 16 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const step of steps) graph.setNode(step.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of edges) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);
  const positions = new Map<string, { x: number; y: number }>();
  for (const step of steps) {
    const node = graph.node(step.id);
    positions.set(step.id, { x: node.x - NODE_WIDTH / 2, y: node.y - NODE_HEIGHT / 2 });
  }
  return positions;
}
