/** RunState: everything one run knows. Created per run by the engine, never shared between runs. */
import { setMaxListeners } from 'node:events';
import type {
  AnswerReference,
  AnswerSource,
  CouncilVerdict,
  EarlierDecision,
  FailedStep,
  GraphEventBody,
  NodeName,
  RunStatus,
} from './events.ts';
import type { GraphPlan } from '../../knowledge/records.ts';
import { ownerIdOf, type RunMode, type RunRequest } from './request.ts';
import type { StepOutcome } from './step-outcome.ts';
import type { RunEventLog } from './event-log.ts';
import type { Admission } from '../spending/admission.ts';
import { UsageMeter, effectiveBudget } from '../spending/usage.ts';
import type { CallerLedger, LedgerSnapshot } from '../spending/ledger.ts';
import { meterModel } from '../spending/metered-model.ts';
import type { EngineDeps, SpanRunner } from './engine-deps.ts';
import type { ModelRole } from '../../llm/types.ts';
import type { ModelClient } from '../../llm/types.ts';
import type { ToolHost } from '../../tools/types.ts';
import type { DecisionRecord, MemoryHit, SpecialistCandidate } from '../../knowledge/store.ts';
import type { SpecialistDirectory, SpecialistMap } from '../../knowledge/specialist-directory.ts';
import { EMPTY_HISTORY, type ConversationHistory } from './conversation.ts';

/** An earlier decision found for a question of this run (learning/earlier-decision.ts), and how close it is. */
export interface FoundDecision {
  decision: DecisionRecord;
  match: EarlierDecision;
}

/** A step that succeeded in an earlier round, as planned then, with its outcome. */
export interface KeptStep {
  step: GraphPlan['steps'][number];
  outcome: StepOutcome;
}

export interface Verification {
  round: number;
  score: number;
  feedback: string;
  failedStepIds: string[];
}

/** The score at which a verification passes (nodes/verifier.ts; dynamic/manager-answer.ts reads it too). */
export const PASS_SCORE = 0.7;

export interface RunOutcome {
  status: RunStatus;
  error?: string;
  retryAfterMs?: number;
}

export interface RunState {
  readonly id: string;
  readonly threadId: string;
  readonly request: RunRequest;
  readonly mode: RunMode;
  readonly callerId: string;
  readonly startedAt: number;
  readonly log: RunEventLog;
  readonly abort: AbortController;
  readonly meter: UsageMeter;
  /** The shared model client wrapped for this run (budget reservation, signal, overrides). */
  readonly model: ModelClient;
  /** Settles RunHandle.admission (the usage guard decides; the first call wins). */
  readonly admit: (admission: Admission) => void;

  /**
   * The conversation before this query (thread-history.ts): the stored thread and the messages the
   * client sent, within the history budget. Loaded by the engine before the first node.
   */
  history: ConversationHistory;
  /** Tools of the session that started the run (RunOptions.tools): offered to every tool-loop specialist beside its own. */
  readonly sessionTools?: ToolHost;

  /** Available specialists by id, loaded once by the router (shared, read-only). */
  specialists: SpecialistMap;
  candidates: SpecialistCandidate[];
  teamConfigId?: string;
  plan?: GraphPlan;
  /** 1 for the first plan, +1 per re-plan. */
  planRound: number;

  memory?: MemoryHit[];
  /** The memory search, started early by the router. */
  memoryPrefetch?: Promise<MemoryHit[]>;
  /** Latest outcome per step id of the current plan. */
  results: Map<string, StepOutcome>;
  /** Step ids still to run in the current round. */
  pending: Set<string>;
  attempts: Map<string, number>;
  /** The dispatcher's in-flight phase, awaited by the matching joiner. */
  inflight?: Promise<Batch>;
  /** Set by the dispatcher when failed steps left dependents unable to run: the planner re-plans at once. */
  replanAfterFailure?: string[];
  /** Verifier feedback given to re-run steps. */
  feedback?: string;

  verifyRound: number;
  verification?: Verification;
  best?: { verification: Verification; plan: GraphPlan; results: Map<string, StepOutcome> };
  /** Succeeded steps of earlier rounds, by specialist and objective: a re-plan reuses them instead of re-running. */
  kept?: Map<string, KeptStep>;
  /** Set when verification rounds ran out (or re-planning failed): the synthesizer says so. */
  exhausted?: string;

  /** Earlier-decision lookups by question (learning/earlier-decision.ts), once per question. */
  earlierDecisions: Map<string, Promise<FoundDecision | undefined>>;
  verdict?: CouncilVerdict;
  answer?: string;
  /** The steps missing from the results the answer was written from (set by the synthesizer). */
  failedSteps?: FailedStep[];
  /** The succeeded steps the answer was written from (set by the synthesizer; run.finished `sources`). */
  sources?: AnswerSource[];
  /** The numbered references of an answer written with citations (run.finished `references`). */
  references?: AnswerReference[];
  outcome?: RunOutcome;
  /** Last node entered (for the watchdog's message). */
  node?: NodeName;
  /** After a restart: the checkpointed plan the router resumes (docs/durability.md). */
  resumePlan?: GraphPlan;
  /** What route.decided says of resumePlan when it is not a restart's (a fork: graph/timetravel/). */
  resumeReason?: string;
  /**
   * A fork that carries every step of a plan that had passed verification (graph/timetravel/): the
   * verification it carries, taken by the verifier instead of a model call while no step has run again.
   */
  carriedVerification?: Verification & { fromRunId: string; outputs: ReadonlyMap<string, string> };
  /** Summaries of step outputs made to fit a reader's context (context-budget.ts), one per output, model and length. */
  summaries?: Map<string, Promise<string>>;
}

/**
 * What a node decides besides where the run goes next. The engine alone applies it (update.ts),
 * and so the engine alone sets a run's outcome.
 */
export interface RunUpdate {
  /** How the run ends: the engine sets it (engine.ts), update.ts never does. */
  outcome?: RunOutcome;
  answer?: string;
  verdict?: CouncilVerdict;
  memory?: MemoryHit[];
  sources?: AnswerSource[];
  references?: AnswerReference[];
  exhausted?: string;
  inflight?: Promise<Batch> | undefined;
  replanAfterFailure?: string[] | undefined;
  // The working state of planning, dispatch and verification (a plan adopted: adoptPlan's update).
  plan?: GraphPlan;
  planRound?: number;
  results?: Map<string, StepOutcome>;
  pending?: Set<string>;
  attempts?: Map<string, number>;
  feedback?: string | undefined;
  verifyRound?: number;
  verification?: Verification;
  best?: RunState['best'];
  kept?: Map<string, KeptStep>;
  /** The verifier takes a fork's carried verification once (or drops it): see RunState.carriedVerification. */
  carriedVerification?: undefined;
  teamConfigId?: string;
  /** Outcomes of a finished batch (the joiner): folded into the results, their steps no longer pending. */
  stepOutcomes?: Map<string, StepOutcome>;
}

/** What a batch the dispatcher started leaves for its joiner: each step's outcome and the attempt it was. */
export interface Batch {
  outcomes: Map<string, StepOutcome>;
  attempts: Map<string, number>;
}

/** The fields a node decides through its RunUpdate, never by writing them. */
type Decided = Exclude<keyof RunUpdate, 'stepOutcomes'>;

/** The fields the engine alone writes: before the first node (history, a resumed run's plan) or as the loop moves. */
type EngineOwned = 'history' | 'node' | 'resumePlan' | 'outcome';

/**
 * The run as a node sees it: what the engine owns and what a node decides (it returns that in its
 * RunUpdate instead) are read-only here; the rest is the node's working state (plan, steps, rounds).
 */
export type NodeRun = Omit<RunState, Decided | EngineOwned> & Readonly<Pick<RunState, Decided | EngineOwned>>;

/** The engine's ports with defaults filled in, plus engine-wide state the nodes need. */
export interface EngineContext extends Required<
  Omit<EngineDeps, 'peers' | 'prices' | 'councilAdvisorModels' | 'presetPlan' | 'threads' | 'runStore' | 'cluster'>
> {
  cluster?: EngineDeps['cluster'];
  runStore?: EngineDeps['runStore'];
  presetPlan?: EngineDeps['presetPlan'];
  threads?: EngineDeps['threads'];
  peers?: EngineDeps['peers'];
  prices?: EngineDeps['prices'];
  councilAdvisorModels?: string[];
  directory: SpecialistDirectory;
  ledger: CallerLedger;
  /** Writes the ledger's snapshot to the data dir; absent with PARLEY_DATA_DIR=:memory:. */
  saveLedger?: (snapshot: LedgerSnapshot) => Promise<void>;
}

export function emit(run: RunState, body: GraphEventBody): void {
  run.log.emit(body);
}

/** A fresh, isolated RunState: its own abort controller, budget meter and metered model client. */
export function createRunState(
  init: {
    id: string;
    threadId: string;
    request: RunRequest;
    startedAt: number;
    log: RunEventLog;
    admit?: (admission: Admission) => void;
    sessionTools?: ToolHost;
  },
  ctx: EngineContext,
): RunState {
  const abort = new AbortController();
  // Every in-flight model/tool call of the run listens on this signal (a council alone has 5 at once).
  setMaxListeners(1000, abort.signal);
  const callerId = ownerIdOf(init.request);
  const meter = new UsageMeter({
    budget: effectiveBudget(ctx.config.budget.run, init.request.budget),
    callerId,
    threadId: init.threadId,
    ledger: ctx.ledger,
    startedAt: init.startedAt,
    now: ctx.now,
  });
  const run: RunState = {
    ...init,
    mode: init.request.mode ?? 'auto',
    // A run state made outside Engine.start (a node under test) has no handle to tell.
    admit: init.admit ?? (() => undefined),
    callerId,
    abort,
    meter,
    model: meterModel(ctx.model, {
      runId: init.id,
      signal: abort.signal,
      meter,
      models: init.request.models,
      prices: ctx.prices,
      maxOutputTokens: ctx.maxOutputTokens,
      onUsage: () => emit(run, { type: 'usage', usage: { ...meter.totals } }),
      ...((init.request.reasoning ?? ctx.config.engine.streamReasoning)
        ? { onThought: (role: ModelRole, text: string) => emit(run, { type: 'model.thought', role, text }) }
        : {}),
    }),
    history: EMPTY_HISTORY,
    specialists: new Map(),
    candidates: [],
    planRound: 1,
    results: new Map(),
    pending: new Set(),
    attempts: new Map(),
    verifyRound: 0,
    earlierDecisions: new Map(),
  };
  return run;
}

export type { SpanRunner };
