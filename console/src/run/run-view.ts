/**
 * A run as the console draws it, folded from its GraphEvents (docs/events.md). The same fold serves a
 * live run and a replay of its event log, so a reload shows exactly what a watcher saw.
 *
 * `applyEvent` mutates the view it is given and replaces only the objects an event touches (a step, the
 * step list, the message list): React re-renders what changed, and a 2,000-event run folds in about a
 * millisecond per hundred events, batched per animation frame by useRunEvents.
 */
import type {
  ApprovalRequest,
  CouncilVerdict,
  GraphEvent,
  PlanStep,
  RunRecord,
  StepLineage,
  UsageTotals,
} from '../api/types.ts';

/** A step's state, never by colour alone: the graph shows the word and an icon too. */
export type StepState = 'pending' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface ToolCallView {
  toolCallId: string;
  tool: string;
  args: unknown;
  state: 'running' | 'waiting' | 'ok' | 'error' | 'denied';
  result?: string;
  error?: string;
  durationMs?: number;
}

export interface StepView {
  id: string;
  specialist: string;
  objective: string;
  dependsOn: string[];
  phase: 'research' | 'execution';
  state: StepState;
  attempt: number;
  manager: boolean;
  /** The agent that spawned this step (dynamic and hybrid runs). */
  parentStepId?: string;
  model?: string;
  /** What the step has streamed so far (bounded: the last STEP_TEXT_LIMIT characters). */
  text: string;
  output?: string;
  error?: string;
  lineage?: StepLineage;
  tools: ToolCallView[];
  /** Approvals this step waits on, by request id. */
  waitingOn: string[];
}

export interface TeamMessage {
  from: string;
  to: string;
  preview: string;
  at: string;
}

export interface RunView {
  runId: string;
  threadId?: string;
  query: string;
  mode?: string;
  protocol?: string;
  state: 'running' | 'completed' | 'failed' | 'cancelled' | 'blocked';
  /** The L0 node running now (router, dispatcher, verifier, …). */
  node?: string;
  /** The L0 nodes the run went through, in order, with how long each took (bounded). */
  path: { node: string; durationMs?: number }[];
  route?: { stage: string; reason: string };
  planRound: number;
  steps: StepView[];
  messages: TeamMessage[];
  teamMemory: { stepId: string; key: string; preview: string }[];
  verifier: { round: number; score: number; feedback: string; next: string }[];
  council: { stage: string; detail: string; verdict?: CouncilVerdict }[];
  approvals: ApprovalRequest[];
  usage?: UsageTotals;
  answer: string;
  error?: string;
  durationMs?: number;
  startedAt?: string;
  lastSeq: number;
  eventCount: number;
}

const STEP_TEXT_LIMIT = 4000;
const LIST_LIMIT = 500;

export function emptyRun(runId: string): RunView {
  return {
    runId,
    query: '',
    state: 'running',
    planRound: 0,
    path: [],
    steps: [],
    messages: [],
    teamMemory: [],
    verifier: [],
    council: [],
    approvals: [],
    answer: '',
    lastSeq: 0,
    eventCount: 0,
  };
}

/** Replaces one step with a changed copy (and the list, so the graph sees it). */
function updateStep(view: RunView, stepId: string | undefined, change: (step: StepView) => Partial<StepView>): void {
  if (!stepId) return;
  const index = view.steps.findIndex((s) => s.id === stepId);
  if (index === -1) return;
  const step = view.steps[index]!;
  view.steps = view.steps.with(index, { ...step, ...change(step) });
}

function updateTool(view: RunView, stepId: string, toolCallId: string, change: Partial<ToolCallView>): void {
  updateStep(view, stepId, (step) => ({
    tools: step.tools.map((t) => (t.toolCallId === toolCallId ? { ...t, ...change } : t)),
  }));
}

const bounded = <T>(list: T[], item: T): T[] => [...list.slice(-(LIST_LIMIT - 1)), item];

function newStep(fields: Pick<StepView, 'id' | 'specialist' | 'objective'> & Partial<StepView>): StepView {
  return {
    dependsOn: [],
    phase: 'research',
    state: 'pending',
    attempt: 0,
    manager: false,
    text: '',
    tools: [],
    waitingOn: [],
    ...fields,
  };
}

/** A plan step as the view holds it (its state is the caller's to set). */
function plannedStep(p: PlanStep): Pick<StepView, 'id' | 'specialist' | 'objective'> & Partial<StepView> {
  return {
    id: p.id,
    specialist: p.specialist,
    objective: p.objective,
    dependsOn: p.dependsOn,
    phase: p.phase,
    manager: p.manager === true,
    ...(p.parentStepId ? { parentStepId: p.parentStepId } : {}),
    ...(p.model ? { model: p.model } : {}),
  };
}

/** Folds one event into the view (events arrive in seq order; a repeated seq is ignored). */
export function applyEvent(view: RunView, event: GraphEvent): RunView {
  if (event.seq <= view.lastSeq) return view;
  view.lastSeq = event.seq;
  view.eventCount++;
  switch (event.type) {
    case 'run.started':
      view.query = event.query;
      view.threadId = event.threadId;
      view.mode = event.mode;
      view.protocol = event.protocol;
      view.startedAt = event.at;
      break;
    case 'node.started':
      view.node = event.node;
      view.path = bounded(view.path, { node: event.node });
      break;
    case 'node.finished': {
      if (view.node === event.node) view.node = undefined;
      const last = view.path.at(-1);
      if (last?.node === event.node && last.durationMs === undefined)
        view.path = view.path.with(-1, { ...last, durationMs: event.durationMs });
      break;
    }
    case 'route.decided':
      view.route = { stage: event.stage, reason: event.reason };
      break;
    case 'plan.ready': {
      view.planRound = event.round;
      const known = new Map(view.steps.map((s) => [s.id, s]));
      view.steps = event.plan.steps.map((p) => {
        const planned = plannedStep(p);
        const before = known.get(p.id);
        // A re-plan keeps what an unchanged step already did; a changed step starts over.
        return before && before.specialist === p.specialist ? { ...before, ...planned } : newStep(planned);
      });
      break;
    }
    case 'step.spawned':
      if (!view.steps.some((s) => s.id === event.stepId))
        view.steps = [
          ...view.steps,
          newStep({
            id: event.stepId,
            specialist: event.specialist,
            objective: event.objective,
            parentStepId: event.parentStepId,
            manager: event.role === 'manager',
            ...(event.model ? { model: event.model } : {}),
          }),
        ];
      break;
    case 'step.started':
      if (!view.steps.some((s) => s.id === event.stepId))
        view.steps = [
          ...view.steps,
          newStep({ id: event.stepId, specialist: event.specialist, objective: event.objective }),
        ];
      updateStep(view, event.stepId, () => ({ state: 'running', attempt: event.attempt, text: '', error: undefined }));
      break;
    case 'step.delta':
      updateStep(view, event.stepId, (s) => ({ text: (s.text + event.text).slice(-STEP_TEXT_LIMIT) }));
      break;
    case 'step.finished':
      updateStep(view, event.stepId, () => ({
        state: event.status,
        ...(event.output !== undefined ? { output: event.output } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
        ...(event.lineage ? { lineage: event.lineage, model: event.lineage.model } : {}),
        waitingOn: [],
      }));
      break;
    case 'tool.started':
      updateStep(view, event.stepId, (s) => ({
        tools: [
          ...s.tools.filter((t) => t.toolCallId !== event.toolCallId),
          { toolCallId: event.toolCallId, tool: event.tool, args: event.args, state: 'running' },
        ],
      }));
      break;
    case 'tool.finished':
      updateTool(view, event.stepId, event.toolCallId, {
        state: event.status,
        durationMs: event.durationMs,
        ...(event.result !== undefined ? { result: event.result } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
      });
      break;
    case 'approval.requested': {
      const request = event.request;
      view.approvals = [...view.approvals.filter((a) => a.id !== request.id), request];
      updateStep(view, request.stepId, (s) => ({
        state: 'waiting',
        waitingOn: [...s.waitingOn, request.id],
        tools:
          request.kind === 'tool'
            ? s.tools.map((t) =>
                request.toolCalls.some((c) => c.toolCallId === t.toolCallId) ? { ...t, state: 'waiting' as const } : t,
              )
            : s.tools,
      }));
      break;
    }
    case 'approval.resolved': {
      const id = event.outcome.requestId;
      const request = view.approvals.find((a) => a.id === id);
      view.approvals = view.approvals.filter((a) => a.id !== id);
      updateStep(view, request?.stepId, (s) => {
        const waitingOn = s.waitingOn.filter((w) => w !== id);
        return {
          waitingOn,
          state: s.state === 'waiting' && waitingOn.length === 0 ? 'running' : s.state,
          tools: s.tools.map((t) => (t.state === 'waiting' ? { ...t, state: 'running' as const } : t)),
        };
      });
      break;
    }
    case 'message.sent':
      view.messages = bounded(view.messages, { from: event.from, to: event.to, preview: event.preview, at: event.at });
      break;
    case 'context.written':
      view.teamMemory = bounded(view.teamMemory, { stepId: event.stepId, key: event.key, preview: event.preview });
      break;
    case 'verify.result':
      view.verifier = [
        ...view.verifier,
        { round: event.round, score: event.score, feedback: event.feedback, next: event.next },
      ];
      break;
    case 'council.stage':
      view.council = [
        ...view.council,
        { stage: event.stage, detail: event.detail, ...(event.verdict ? { verdict: event.verdict } : {}) },
      ];
      break;
    case 'answer.delta':
      view.answer += event.text;
      break;
    case 'usage':
      view.usage = event.usage;
      break;
    case 'run.finished':
      view.state = event.status;
      view.usage = event.usage;
      view.durationMs = event.durationMs;
      view.node = undefined;
      view.approvals = [];
      if (event.answer !== undefined) view.answer = event.answer;
      if (event.error !== undefined) view.error = event.error;
      // A step still waiting or running when the run ended did not finish.
      if (view.steps.some((s) => s.state === 'running' || s.state === 'waiting'))
        view.steps = view.steps.map((s) =>
          s.state === 'running' || s.state === 'waiting' ? { ...s, state: 'cancelled', waitingOn: [] } : s,
        );
      break;
    case 'model.thought':
      break;
  }
  return view;
}

/** Folds a whole event log (a replay). */
export function foldEvents(runId: string, events: Iterable<GraphEvent>): RunView {
  const view = emptyRun(runId);
  for (const event of events) applyEvent(view, event);
  return view;
}

/**
 * A finished run whose event log is no longer retained (PARLEY_RUN_RETENTION_MS), drawn from its record
 * in execution memory: the plan, each step's outcome, tokens, cost, time and tool calls.
 */
export function viewFromRecord(record: RunRecord): RunView {
  const view = emptyRun(record.id);
  const steps = new Map(record.steps.map((s) => [s.id, s]));
  Object.assign(view, {
    query: record.query,
    threadId: record.threadId,
    protocol: record.protocol,
    state: record.status,
    answer: record.answer ?? '',
    startedAt: record.startedAt,
    durationMs: record.durationMs,
    ...(record.error ? { error: record.error } : {}),
  });
  view.steps = (record.plan?.steps ?? []).map((p) => {
    const done = steps.get(p.id);
    return newStep({
      ...plannedStep(p),
      state: done?.status ?? 'pending',
      ...(done?.output ? { output: done.output } : {}),
      ...(done?.error ? { error: done.error } : {}),
      tools: (done?.toolCalls ?? []).map((t, i) => ({
        toolCallId: `${p.id}-${i}`,
        tool: t.tool,
        args: {},
        state: t.status,
      })),
    });
  });
  if (record.score !== null) view.verifier = [{ round: 1, score: record.score, feedback: '', next: 'synthesize' }];
  return view;
}
