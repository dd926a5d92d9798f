/** The checkpoints in order, as a row of marks: kind as a symbol and a word, selected by click or arrow keys. */
import type { KeyboardEvent } from 'react';
import type { CheckpointEntry } from '../api/types.ts';
import { formatCost } from '../run/step-state.ts';

const KIND: Record<CheckpointEntry['kind'], { symbol: string; word: string }> = {
  routed: { symbol: '⤳', word: 'routed' },
  planned: { symbol: '☰', word: 'planned' },
  step: { symbol: '✓', word: 'step' },
  verified: { symbol: '⚖', word: 'verified' },
  before_synthesis: { symbol: '✎', word: 'synthesis' },
};

export function Timeline({
  checkpoints,
  selected,
  onSelect,
}: {
  checkpoints: CheckpointEntry[];
  selected?: string;
  onSelect(id: string): void;
}) {
  if (checkpoints.length === 0) return null;
  const at = checkpoints.findIndex((c) => c.id === selected);
  const onKey = (e: KeyboardEvent) => {
    const next = e.key === 'ArrowRight' ? at + 1 : e.key === 'ArrowLeft' ? at - 1 : undefined;
    if (next === undefined || !checkpoints[next]) return;
    e.preventDefault();
    onSelect(checkpoints[next].id);
  };
  return (
    <ol className="timeline" aria-label="Timeline" onKeyDown={onKey}>
      {checkpoints.map((c) => {
        const kind = KIND[c.kind];
        const failed = c.kind === 'step' && !c.label.includes('(succeeded)');
        return (
          <li key={c.id}>
            <button
              type="button"
              className={c.id === selected ? 'mark selected' : 'mark'}
              data-checkpoint={c.id}
              data-kind={c.kind}
              aria-pressed={c.id === selected}
              title={`${c.label} · ${c.usage.modelCalls} calls · ${formatCost(c.usage.costUsd)} · ${new Date(c.at).toLocaleTimeString()}`}
              onClick={() => onSelect(c.id)}
            >
              <span className={failed ? 'symbol bad' : 'symbol'} aria-hidden="true">
                {failed ? '✗' : kind.symbol}
              </span>
              <span className="mark-word">{c.kind === 'step' ? (c.stepId ?? 'step') : kind.word}</span>
              <span className="mark-count">{c.planSteps !== undefined ? `${c.stepsFinished}/${c.planSteps}` : ''}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}
