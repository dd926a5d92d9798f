/**
 * GraphEvent: THE contract every adapter consumes. docs/events.md documents each type with an example.
 * Every event carries runId, a per-run strictly increasing seq (starting at 1) and an ISO timestamp.
 */
import type { CouncilVerdict, ForkOrigin, GraphPlan, RunStatus, StepStatus } from '../../knowledge/records.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../../hitl/types.ts';
import type { RunMode } from './request.ts';
import type { ModelRole } from '../../llm/types.ts';
import type { UsageTotals } from '../spending/usage.ts';

export const NODE_NAMES = [
  'usage_guard',
  'router',
  'direct_answer',
  'memory',
  'dispatcher',
  'research_joiner',
  'execution_joiner',
  'verifier',
  'planner',
  'synthesizer',
  'council',
] as const;
export type NodeName = (typeof NODE_NAMES)[number];

/** Run and step outcomes and the council's verdict are stored records (knowledge/records.ts); events carry them. */
export type { CouncilVerdict, RunStatus, StepStatus } from '../../knowledge/records.ts';
// A run's usage as the usage event and run.finished report it (spending/usage.ts counts it).
export type { UsageTotals } from '../spending/usage.ts';
export type RouteStage =
  'preset_plan' | 'team_config' | 'self_model' | 'llm_plan' | 'direct' | 'council' | 'dynamic' | 'hybrid';

/** A spawned agent's part: a manager may spawn agents of its own, a worker does the work itself. */
export type AgentRole = 'manager' | 'worker';

/** Router stage 1's judgement of the closest proven team: why it was or was not reused. */
export interface TeamMatch {
  teamConfigId: string;
  /** The team's pattern (sorted stems of the query that taught it). */
  pattern: string;
  /** Jaccard similarity of the query's pattern and the team's, 0..1 (what the store found it by). */
  similarity: number;
  reused: boolean;
  /** Why, in words: the rule that matched or the first difference found. */
  why: string;
}

/** An earlier council decision of the same caller close to this question, given as context (issue 14 §4). */
export interface EarlierDecision {
  decisionId: string;
  runId: string;
  /** The question the earlier decision answered. */
  question: string;
  /** Jaccard similarity of the two questions' patterns, 0..1 (the registry's team matching). */
  similarity: number;
  /** How this question's shape differs (mood, negation, word order), when it does. */
  difference?: string;
}

/** Where a step's result came from: enough to audit and to learn from. */
export interface StepLineage {
  specialist: string;
  kind: 'prompt' | 'mcp' | 'a2a' | 'council';
  model?: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  attempt: number;
  /** `targets`: the files and addresses the call's arguments named (named-sources.ts), absent when none. */
  toolCalls: { toolCallId: string; tool: string; status: 'ok' | 'error' | 'denied'; targets?: string[] }[];
  sources: string[];
  /** What the step read or wrote, by names a reader knows (files, web pages, remote agents); absent when none. */
  named?: NamedSource[];
  usage: UsageTotals;
}

/**
 * A source by a name a person knows it by: a file (its name; `uri` its path), a web page (its URL), a
 * remote agent (its name; `uri` its endpoint), or a tool that named no file or page (`server/tool`).
 */
export interface NamedSource {
  kind: 'file' | 'web' | 'agent' | 'tool';
  title: string;
  uri?: string;
}

/** A numbered reference of an answer written with `citations: "numbered"`: the answer cites it as [n]. */
export interface AnswerReference extends NamedSource {
  n: number;
  /** The steps that read it (data for a client that shows provenance; never in the answer's text). */
  stepIds: string[];
}

/**
 * Why a re-plan (plan.ready round > 1) was made: a low verifier score, or a failed step whose
 * dependents could not run (re-planned at once, PARLEY_REPLAN_ON_FAILURE); `failedStepIds` are the
 * previous plan's steps that failed (step_failed) or that the verifier named (verifier).
 */
export interface PlanCause {
  cause: 'verifier' | 'step_failed';
  failedStepIds: string[];
}

/** A plan step that did not succeed in the results the answer was written from. */
export interface FailedStep {
  stepId: string;
  specialist: string;
  status: 'failed' | 'skipped' | 'cancelled';
  error: string;
}

/** A step whose result the answer was written from (run.finished `sources`): adapters may list them. */
export interface AnswerSource {
  stepId: string;
  specialist: string;
  /** What the step read, by name (StepLineage.named); absent when it named none. */
  named?: NamedSource[];
}

/** How a run ended: the body of run.finished, and (with ids) the engine's RunResult. */
export interface RunEnding {
  status: RunStatus;
  answer?: string;
  /** Plan runs only, when some steps failed or were skipped: the answer is partial, these are the missing parts and why. */
  failedSteps?: FailedStep[];
  /** Plan and team runs: the succeeded steps the answer was written from (provenance as data; the answer never names them). */
  sources?: AnswerSource[];
  /** Only when the request asked for `citations: "numbered"`: the references the answer cites as [1], [2] and lists at its end. */
  references?: AnswerReference[];
  /** Why the run failed, was cancelled or blocked; safe to show a client (no stack traces). */
  error?: string;
  /** Set when status is "blocked" by the caller's rate limit: when a retry may succeed (HTTP 429 Retry-After). */
  retryAfterMs?: number;
  usage: UsageTotals;
  durationMs: number;
}

export type { ForkOrigin } from '../../knowledge/records.ts';

export type GraphEventBody =
  | {
      type: 'run.started';
      threadId: string;
      query: string;
      mode: RunMode;
      protocol: string;
      /** A fork (docs/time-travel.md): the run and checkpoint it started from. */
      forkedFrom?: ForkOrigin;
      /** A replay: the run whose request this one repeats on another configuration. */
      replayOf?: string;
    }
  | { type: 'node.started'; node: NodeName }
  | { type: 'node.finished'; node: NodeName; durationMs: number; next?: string }
  | {
      type: 'route.decided';
      stage: RouteStage;
      reason: string;
      teamConfigId?: string;
      candidates?: string[];
      teamMatch?: TeamMatch;
      /** The caller's earlier decision the router (and the council) saw as context. */
      earlierDecision?: EarlierDecision;
    }
  | ({ type: 'plan.ready'; plan: GraphPlan; round: number } & Partial<PlanCause>)
  | { type: 'step.started'; stepId: string; specialist: string; objective: string; attempt: number }
  | { type: 'step.delta'; stepId: string; text: string }
  /** A running agent added a step to the plan (dynamic and hybrid runs); step.started follows when it runs. */
  | {
      type: 'step.spawned';
      stepId: string;
      parentStepId: string;
      specialist: string;
      objective: string;
      role: AgentRole;
      model?: string;
    }
  /** One agent of a dynamic run told another (`to`: a step id, or "*" for a broadcast). */
  | { type: 'message.sent'; from: string; to: string; preview: string }
  /** An agent wrote its run's team memory (write_context or append_context). */
  | { type: 'context.written'; stepId: string; key: string; preview: string }
  | {
      type: 'step.finished';
      stepId: string;
      specialist: string;
      status: StepStatus;
      output?: string;
      error?: string;
      lineage?: StepLineage;
    }
  | { type: 'tool.started'; stepId: string; toolCallId: string; tool: string; args: unknown }
  | {
      type: 'tool.finished';
      stepId: string;
      toolCallId: string;
      tool: string;
      status: 'ok' | 'error' | 'denied';
      result?: string;
      error?: string;
      durationMs: number;
    }
  | { type: 'approval.requested'; request: ApprovalRequest }
  | { type: 'approval.resolved'; outcome: ApprovalOutcome }
  | {
      type: 'verify.result';
      round: number;
      score: number;
      feedback: string;
      failedStepIds: string[];
      next: 'synthesize' | 'retry_failed' | 'replan' | 'exhausted';
      /** A fork's verification carried from this run (the steps it verified were all carried): no verifier call. */
      carriedFrom?: string;
    }
  | {
      type: 'council.stage';
      stage: 'advisors' | 'reviews' | 'verdict';
      detail: string;
      /**
       * Who is behind each label, in the order the reader was shown the answers (label → advisor id):
       * stage "reviews": one per reviewer, each its own; stage "verdict": the chairman's. Never in an answer.
       */
      labels?: Record<string, string>[];
      /** stage "verdict": the decision with its confidence and the reviewers' rankings (by advisor id). */
      verdict?: CouncilVerdict;
    }
  | { type: 'answer.delta'; text: string }
  /** The model's reasoning, when the run streams it (RunRequest.reasoning / PARLEY_STREAM_REASONING). */
  | { type: 'model.thought'; role: ModelRole; text: string }
  | { type: 'usage'; usage: UsageTotals }
  | ({ type: 'run.finished' } & RunEnding);

export type GraphEventType = GraphEventBody['type'];
export type GraphEvent = GraphEventBody & { runId: string; seq: number; at: string };
export type GraphEventOf<T extends GraphEventType> = Extract<GraphEvent, { type: T }>;

export function isTerminal(event: GraphEvent): event is GraphEventOf<'run.finished'> {
  return event.type === 'run.finished';
}
