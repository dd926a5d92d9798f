/**
 * One step as a specialist runs it: the call the scheduler hands over (StepCall) and the work it
 * counts as it goes (StepWork). Apart from index.ts so the specialist kinds (prompt.ts, mcp.ts, a2a.ts),
 * which index.ts dispatches to, read them without importing it back.
 */
import type { PlanStep } from '../planning/graph-plan.ts';
import type { StepClock } from '../planning/scheduler.ts';
import type { NamedSource, StepLineage } from '../run/events.ts';
import type { EngineContext, RunState } from '../run/state.ts';
import type { emptyUsage } from '../spending/usage.ts';

export interface StepWork {
  usage: ReturnType<typeof emptyUsage>;
  toolCalls: StepLineage['toolCalls'];
  sources: string[];
  /** What the step read or wrote, by name (named-sources.ts): StepLineage.named. */
  named: NamedSource[];
  model?: string;
}

/** One step to run: what the scheduler hands over, and the run it belongs to. */
export interface StepCall {
  run: RunState;
  ctx: EngineContext;
  step: PlanStep;
  /** The objective after {{id.result}} substitution. */
  objective: string;
  signal: AbortSignal;
  /** The step's timeout clock, paused while the step waits on a human. */
  clock: StepClock;
  attempt: number;
}
