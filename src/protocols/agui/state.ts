/**
 * The shared state an AG-UI client sees (STATE_SNAPSHOT, then STATE_DELTA patches): the run's
 * plan with each step's status, the route, the latest verification and the pending approvals,
 * all under the `parley` key so a frontend's own state keys are never touched.
 */
import type { GraphEvent, NodeName, RouteStage, RunStatus, StepStatus } from '../../graph/contract.ts';

export interface StepView {
  id: string;
  specialist: string;
  objective: string;
  dependsOn: string[];
  phase: 'research' | 'execution';
  status: 'pending' | 'running' | StepStatus;
  attempt: number;
  /** Set on a step an agent spawned while the run went on (dynamic teams): the step that spawned it. */
  parentStepId?: string;
  role?: 'manager' | 'worker';
  output?: string;
  error?: string;
}

export interface ApprovalView {
  requestId: string;
  kind: 'tool' | 'elicitation';
  toolCalls: { toolCallId: string; tool: string; reason: string }[];
  message?: string;
  expiresAt: string;
}

export interface RunView {
  runId: string;
  status: 'running' | 'waiting_for_approval' | RunStatus;
  node: NodeName | null;
  route: { stage: RouteStage; reason: string } | null;
  plan: { round: number; rationale: string; steps: StepView[] } | null;
  verification: { round: number; score: number; feedback: string; next: string } | null;
  approvals: ApprovalView[];
  /** Dynamic teams: messages between agents and team-memory writes, newest last (at most MAX_TEAM_LOG). */
  team?: { messages: { from: string; to: string; preview: string }[]; memory: Record<string, string> };
}

const MAX_TEAM_LOG = 50;

export interface AguiState {
  parley: RunView;
}

export const initialState = (runId: string): AguiState => ({
  parley: { runId, status: 'running', node: null, route: null, plan: null, verification: null, approvals: [] },
});

/** The next state after one event (a new object; the previous one is left intact for diffing). */
export function reduceState(state: AguiState, e: GraphEvent): AguiState {
  const v: RunView = structuredClone(state.parley);
  const step = (id: string) => v.plan?.steps.find((s) => s.id === id);
  switch (e.type) {
    case 'node.started':
      v.node = e.node;
      break;
    case 'route.decided':
      v.route = { stage: e.stage, reason: e.reason };
      break;
    case 'plan.ready':
      v.plan = {
        round: e.round,
        rationale: e.plan.rationale,
        steps: e.plan.steps.map((s) => ({
          id: s.id,
          specialist: s.specialist,
          objective: s.objective,
          dependsOn: s.dependsOn,
          phase: s.phase,
          status: 'pending',
          attempt: 0,
          ...(s.parentStepId ? { parentStepId: s.parentStepId } : {}),
          ...(s.manager ? { role: 'manager' as const } : {}),
        })),
      };
      break;
    case 'step.spawned':
      v.plan?.steps.push({
        id: e.stepId,
        specialist: e.specialist,
        objective: e.objective,
        dependsOn: [],
        phase: 'execution',
        status: 'pending',
        attempt: 0,
        parentStepId: e.parentStepId,
        role: e.role,
      });
      break;
    case 'message.sent': {
      const team = (v.team ??= { messages: [], memory: {} });
      team.messages = [...team.messages, { from: e.from, to: e.to, preview: e.preview }].slice(-MAX_TEAM_LOG);
      break;
    }
    case 'context.written':
      (v.team ??= { messages: [], memory: {} }).memory[e.key] = e.preview;
      break;
    case 'step.started': {
      const s = step(e.stepId);
      if (s) Object.assign(s, { status: 'running', attempt: e.attempt, objective: e.objective });
      break;
    }
    case 'step.finished': {
      const s = step(e.stepId);
      if (s) {
        s.status = e.status;
        if (e.output !== undefined) s.output = e.output;
        if (e.error !== undefined) s.error = e.error;
      }
      break;
    }
    case 'approval.requested': {
      const r = e.request;
      v.approvals.push({
        requestId: r.id,
        kind: r.kind,
        toolCalls:
          r.kind === 'tool'
            ? r.toolCalls.map((t) => ({ toolCallId: t.toolCallId, tool: t.tool, reason: t.reason }))
            : [],
        ...(r.kind === 'elicitation' ? { message: r.message } : {}),
        expiresAt: r.expiresAt,
      });
      v.status = 'waiting_for_approval';
      break;
    }
    case 'approval.resolved':
      v.approvals = v.approvals.filter((a) => a.requestId !== e.outcome.requestId);
      if (v.approvals.length === 0 && v.status === 'waiting_for_approval') v.status = 'running';
      break;
    case 'verify.result':
      v.verification = { round: e.round, score: e.score, feedback: e.feedback, next: e.next };
      break;
    case 'run.finished':
      v.status = e.status;
      v.node = null;
      v.approvals = [];
      break;
    default:
      return state;
  }
  return { parley: v };
}
