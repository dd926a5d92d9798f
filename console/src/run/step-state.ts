/** How a step's state is shown: a word and a symbol always, colour only on top (accessibility). */
import type { StepState } from './run-view.ts';

export const STATE_LABEL: Record<StepState, { symbol: string; word: string }> = {
  pending: { symbol: '○', word: 'pending' },
  running: { symbol: '◐', word: 'running' },
  waiting: { symbol: '‖', word: 'waiting for a human' },
  succeeded: { symbol: '✓', word: 'done' },
  failed: { symbol: '✗', word: 'failed' },
  skipped: { symbol: '↷', word: 'skipped' },
  cancelled: { symbol: '⊘', word: 'cancelled' },
};

export const formatCost = (usd: number | null | undefined) =>
  usd === null || usd === undefined
    ? 'unpriced'
    : usd === 0
      ? '$0'
      : usd < 0.01
        ? `$${usd.toFixed(4)}`
        : `$${usd.toFixed(2)}`;

export const formatMs = (ms: number | undefined) =>
  ms === undefined ? '' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
