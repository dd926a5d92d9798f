/**
 * The run's DAG on a React Flow canvas: one node per step (specialist, state as symbol and word,
 * objective, tokens and cost once known), solid edges for dependencies, dashed ones from an agent to
 * the agents it spawned, dotted animated ones for the latest team messages.
 */
import { Background, Controls, Handle, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useMemo, useRef } from 'react';
import { edgesOf, layout, NODE_HEIGHT, NODE_WIDTH, shapeKey } from './layout.ts';
import type { RunView, StepView } from './run-view.ts';
import { formatCost, formatMs, STATE_LABEL } from './step-state.ts';

type StepNode = Node<{ step: StepView; selected: boolean }, 'step'>;

const StepCard = memo(function StepCard({ data }: NodeProps<StepNode>) {
  const { step } = data;
  const label = STATE_LABEL[step.state];
  const usage = step.lineage?.usage;
  return (
    <div
      className={`step step-${step.state}${data.selected ? ' step-selected' : ''}`}
      data-step-id={step.id}
      data-state={step.state}
    >
      <Handle type="target" position={Position.Left} />
      <div className="step-head">
        <span className="step-name">{step.specialist}</span>
        {step.manager && <span className="tag">manager</span>}
      </div>
      <div className="step-state">
        <span aria-hidden="true">{label.symbol}</span> {label.word}
        {step.attempt > 1 ? ` · attempt ${step.attempt}` : ''}
      </div>
      <div className="step-objective" title={step.objective}>
        {step.objective}
      </div>
      {usage && (
        <div className="step-usage">
          {usage.inputTokens + usage.outputTokens} tokens · {formatCost(usage.costUsd)}
        </div>
      )}
      <Handle type="source" position={Position.Right} />
    </div>
  );
});

const NODE_TYPES = { step: StepCard };

export function RunGraph({
  view,
  selected,
  onSelect,
}: {
  view: RunView;
  selected: string | undefined;
  onSelect: (stepId: string) => void;
}) {
  const shape = shapeKey(view.steps);
  // Positions depend on the shape only: a status change re-renders a node, it never moves one.
  const { positions, edges } = useMemo(() => {
    const edges = edgesOf(view.steps);
    return { positions: layout(view.steps, edges), edges };
  }, [shape]);

  // A node object is made again only when its step, selection or place changed: React Flow keeps the
  // size it measured for an unchanged object, and re-measures (and hides until then) a new one.
  const made = useRef(new Map<string, StepNode>());
  const nodes: StepNode[] = view.steps.map((step) => {
    const position = positions.get(step.id) ?? { x: 0, y: 0 };
    const before = made.current.get(step.id);
    if (
      before &&
      before.data.step === step &&
      before.data.selected === (step.id === selected) &&
      before.position === position
    )
      return before;
    const node: StepNode = {
      id: step.id,
      type: 'step',
      position,
      // Known before it is measured, so a node is never drawn hidden while it waits for a measurement.
      initialWidth: NODE_WIDTH,
      initialHeight: NODE_HEIGHT,
      data: { step, selected: step.id === selected },
      ariaLabel: `${step.specialist}: ${STATE_LABEL[step.state].word}`,
    };
    made.current.set(step.id, node);
    return node;
  });
  const flowEdges: Edge[] = edges.map((e) => ({
    id: e.id,
    source: e.source,
    target: e.target,
    className: `edge-${e.kind}`,
    animated: e.kind === 'depends' && view.steps.find((s) => s.id === e.target)?.state === 'running',
  }));
  const ids = new Set(view.steps.map((s) => s.id));
  const recent = new Map<string, { from: string; to: string }>();
  for (const m of view.messages.slice(-8)) if (ids.has(m.from) && ids.has(m.to)) recent.set(`${m.from}>${m.to}`, m);
  for (const [key, m] of recent)
    flowEdges.push({
      id: `m:${key}`,
      source: m.from,
      target: m.to,
      className: 'edge-message',
      animated: true,
      label: '✉',
    });

  // A run without a plan (a direct answer, a council) is drawn as the nodes it went through.
  if (view.steps.length === 0)
    return (
      <div className="graph-empty" aria-label="Run path">
        <ol className="path">
          {view.path.map((p, i) => (
            <li key={i} data-node={p.node} data-done={p.durationMs !== undefined}>
              {i > 0 && (
                <span className="arrow" aria-hidden="true">
                  →
                </span>
              )}
              <span className="chip">
                <span aria-hidden="true">{p.durationMs === undefined ? '◐' : '✓'}</span> {p.node}
                {p.durationMs !== undefined && <small className="muted"> {formatMs(p.durationMs)}</small>}
              </span>
            </li>
          ))}
        </ol>
        {view.state === 'running' && view.path.length === 0 && <p>Starting…</p>}
        {view.state !== 'running' && <p className="muted">No plan of steps: {view.route?.stage ?? 'no'} route.</p>}
      </div>
    );
  return (
    <div className="graph" aria-label="Run graph">
      <ReactFlow
        nodes={nodes}
        edges={flowEdges}
        nodeTypes={NODE_TYPES}
        onNodeClick={(_, node) => onSelect(node.id)}
        nodesDraggable={false}
        nodesConnectable={false}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        minZoom={0.2}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
