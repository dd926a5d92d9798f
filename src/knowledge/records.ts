/**
 * The run-shaped records the knowledge store keeps (plans, step and run outcomes, council verdicts):
 * part of the store's port, so knowledge/ owns them and graph/ imports them from here. graph/plan.ts
 * checks its zod schema against GraphPlan; graph/run/events.ts re-exports the statuses and the verdict.
 */

/** One step of a GraphPlan: a specialist, its objective, and the steps whose results it needs. */
export interface PlanStep {
  id: string;
  specialist: string;
  objective: string;
  dependsOn: string[];
  phase: 'research' | 'execution';
  timeoutMs?: number;
  /** The model this step's specialist calls use instead of its role's (priced like any other call). */
  model?: string;
  /** A manager: the step's agent may spawn agents of its own (dynamic and hybrid runs, docs/engine.md). */
  manager?: boolean;
  /** Set on a step an agent spawned while the run went on: the step that spawned it. */
  parentStepId?: string;
  /**
   * The step creates, edits, moves or deletes something: its specialist is offered its tools that
   * change things (each may need a human's approval). false: read-only tools only. Unset (plans from
   * before the field, presets, spawned steps): every bound tool, as before.
   */
  changes?: boolean;
}

/** The DAG of specialist steps the router/planner produces; stored with each run and each proven team. */
export interface GraphPlan {
  rationale: string;
  steps: PlanStep[];
}

/** Where a fork (docs/time-travel.md) started: the run and its checkpoint (GET /api/runs/:id/checkpoints). */
export interface ForkOrigin {
  runId: string;
  checkpoint: string;
}

export type RunStatus = 'completed' | 'failed' | 'cancelled' | 'blocked';
export type StepStatus = 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/**
 * A council's verdict: the chairman's structured answer (prompting/schemas.ts CouncilVerdictSchema) and
 * the reviewers' rankings. Data for events, the Decision record and protocol data parts; the person
 * reads `answer`. Decisions recorded before issue 43 lack comparison, confidenceReason, answer and rankings.
 */
export interface CouncilVerdict {
  /** The chairman's comparison of the answers, written before it decided. */
  comparison?: string;
  recommendation: string;
  keyInsights: string[];
  blindSpots: string[];
  consensus: string;
  dissent: string;
  nextStep: string;
  confidence: number;
  /** Why the confidence is what it is, in words. */
  confidenceReason?: string;
  /** The advice as the person reads it (the run's answer). */
  answer?: string;
  /** Each reviewer's ranking of the advisors (by advisor id, best first) and its critique of each. */
  rankings?: CouncilRanking[];
}

export interface CouncilRanking {
  /** 1-based. */
  reviewer: number;
  /** Advisor ids, best first. */
  ranking: string[];
  /** Advisor id → this reviewer's critique of that advisor's answer. */
  critiques: Record<string, string>;
}
