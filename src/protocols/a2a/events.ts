/**
 * GraphEvent → A2A task events. A run is a task: progress becomes WORKING status updates (text
 * for plan and steps, the raw progress in `metadata.parley`), step results and the answer become
 * artifacts, an approval becomes INPUT_REQUIRED carrying the pending requests as a data part, and
 * run.finished becomes the terminal state with its reason.
 *
 * Artifacts are always sent whole (never `append`), and a status message's id is the event's
 * (`<runId>:<seq>`), so applying an event twice (the request's ResultManager and the run pump's both
 * persist it; after a crash the pump may apply its last event again) leaves the same task.
 */
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { GraphEvent, RunStatus } from '../../graph/contract.ts';
import type { ApprovalRequest } from '../../hitl/types.ts';
import { agentMessage, artifact, dataPart, status, textPart } from './parts.ts';

export interface TaskIds {
  taskId: string;
  contextId: string;
}

/** Per-task state the projection needs: approvals still waiting for a decision. */
export interface Projection {
  pending: Map<string, ApprovalRequest>;
}

export const ANSWER_ARTIFACT_ID = 'answer';
export const stepArtifactId = (stepId: string) => `step-${stepId}`;

const TERMINAL: Record<RunStatus, TaskState> = {
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  // A run stopped by the usage guard was declined by the agent, not broken.
  blocked: TaskState.TASK_STATE_REJECTED,
};

/** What the client gets in the INPUT_REQUIRED data part (documented in docs/protocols/a2a.md). */
export function approvalPayload(pending: ApprovalRequest[]) {
  return {
    type: 'parley.approval',
    pending: pending.map((r) =>
      r.kind === 'tool'
        ? {
            request_id: r.id,
            kind: r.kind,
            stepId: r.stepId,
            expiresAt: r.expiresAt,
            toolCalls: r.toolCalls.map((c) => ({
              toolCallId: c.toolCallId,
              tool: c.tool,
              args: c.args,
              reason: c.reason,
              annotations: c.annotations,
            })),
          }
        : {
            request_id: r.id,
            kind: r.kind,
            stepId: r.stepId,
            expiresAt: r.expiresAt,
            source: r.source,
            message: r.message,
            requestedSchema: r.requestedSchema,
          },
    ),
    resume: {
      how: 'send a message with this taskId and a data part {request_id, decisions: {<toolCallId>: "accept"|"deny"|{edit:{...}}}, feedback?} (or {request_id, action, content?} for an elicitation), or POST /api/approve with the same body',
    },
  };
}

function describe(r: ApprovalRequest): string {
  if (r.kind === 'elicitation') return `${r.source} asks: ${r.message}`;
  return r.toolCalls.map((c) => `${c.tool} ${JSON.stringify(c.args)} (${c.reason})`).join('; ');
}

/** The id of the status message that stands for a run event: the same each time the event is projected. */
const messageIdOf = (event: GraphEvent) => `${event.runId}:${event.seq}`;

export function inputRequired(ids: TaskIds, pending: ApprovalRequest[], messageId?: string): AgentExecutionEvent {
  const text = `Approval needed (${pending.length} pending): ${pending.map((r) => `[${r.id}] ${describe(r)}`).join(' | ')}`;
  const message = agentMessage(
    ids.taskId,
    ids.contextId,
    [textPart(text), dataPart(approvalPayload(pending))],
    messageId,
  );
  return AgentEvent.statusUpdate({
    ...ids,
    status: status(TaskState.TASK_STATE_INPUT_REQUIRED, message),
    metadata: { parley: { event: 'approval.requested', pending: pending.map((r) => r.id) } },
  });
}

function working(
  ids: TaskIds,
  progress: Record<string, unknown>,
  text?: string,
  messageId?: string,
): AgentExecutionEvent {
  const message = text === undefined ? undefined : agentMessage(ids.taskId, ids.contextId, [textPart(text)], messageId);
  return AgentEvent.statusUpdate({
    ...ids,
    status: status(TaskState.TASK_STATE_WORKING, message),
    metadata: { parley: progress },
  });
}

export function projectEvent(event: GraphEvent, ids: TaskIds, state: Projection): AgentExecutionEvent[] {
  const waiting = state.pending.size > 0;
  // While a human is being asked, progress from parallel branches must not flip the task back to WORKING.
  const progress = (p: Record<string, unknown>, text?: string) =>
    waiting ? [] : [working(ids, { runId: event.runId, seq: event.seq, ...p }, text, messageIdOf(event))];

  switch (event.type) {
    case 'run.started':
      return progress({ event: event.type, mode: event.mode });
    case 'node.started':
      return progress({ event: event.type, node: event.node });
    case 'route.decided':
      return progress({ event: event.type, stage: event.stage, reason: event.reason });
    case 'plan.ready': {
      const steps = event.plan.steps.map((s) => `${s.id} (${s.specialist}): ${s.objective}`).join('; ');
      return progress(
        { event: event.type, round: event.round, plan: event.plan },
        `Plan, round ${event.round}: ${steps}`,
      );
    }
    case 'step.started':
      return progress(
        { event: event.type, stepId: event.stepId, specialist: event.specialist, attempt: event.attempt },
        `Step ${event.stepId} started (${event.specialist}): ${event.objective}`,
      );
    case 'step.finished':
      return [
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: artifact(
            stepArtifactId(event.stepId),
            `step ${event.stepId}`,
            `${event.specialist}: ${event.status}`,
            [textPart(event.output ?? event.error ?? event.status)],
            {
              stepId: event.stepId,
              specialist: event.specialist,
              status: event.status,
              error: event.error,
              lineage: event.lineage,
            },
          ),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      ];
    case 'step.spawned':
      return progress(
        {
          event: event.type,
          stepId: event.stepId,
          parentStepId: event.parentStepId,
          specialist: event.specialist,
          role: event.role,
        },
        `Agent ${event.parentStepId} spawned ${event.stepId} (${event.role}, ${event.specialist}): ${event.objective}`,
      );
    case 'message.sent':
      return progress({ event: event.type, from: event.from, to: event.to, preview: event.preview });
    case 'context.written':
      return progress({ event: event.type, stepId: event.stepId, key: event.key, preview: event.preview });
    case 'tool.started':
      return progress({ event: event.type, stepId: event.stepId, toolCallId: event.toolCallId, tool: event.tool });
    case 'tool.finished':
      return progress({
        event: event.type,
        stepId: event.stepId,
        toolCallId: event.toolCallId,
        tool: event.tool,
        status: event.status,
      });
    case 'approval.requested':
      state.pending.set(event.request.id, event.request);
      return [inputRequired(ids, [...state.pending.values()], messageIdOf(event))];
    case 'approval.resolved': {
      if (!state.pending.delete(event.outcome.requestId)) return [];
      if (state.pending.size > 0) return [inputRequired(ids, [...state.pending.values()], messageIdOf(event))];
      // A cancelled run goes straight to CANCELED; no WORKING blip in between.
      if (event.outcome.resolvedBy === 'cancelled') return [];
      const o = event.outcome;
      return [
        working(
          ids,
          { event: event.type, requestId: o.requestId, resolvedBy: o.resolvedBy, actor: o.actor },
          `Approval ${o.requestId} resolved (${o.resolvedBy}); continuing.`,
          messageIdOf(event),
        ),
      ];
    }
    case 'verify.result':
      return progress({
        event: event.type,
        round: event.round,
        score: event.score,
        next: event.next,
        failedStepIds: event.failedStepIds,
      });
    case 'council.stage': {
      const out = progress({
        event: event.type,
        stage: event.stage,
        detail: event.detail,
        ...(event.labels ? { labels: event.labels } : {}),
      });
      if (event.verdict) {
        out.push(
          AgentEvent.artifactUpdate({
            ...ids,
            artifact: artifact('council-verdict', 'council verdict', event.verdict.recommendation, [
              dataPart(event.verdict),
            ]),
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
      }
      return out;
    }
    case 'usage':
      return progress({ event: event.type, usage: event.usage });
    case 'run.finished':
      return finished(event, ids, state);
    case 'node.finished':
    case 'step.delta':
    case 'answer.delta':
    case 'model.thought':
      // Deltas are not streamed: artifacts go out whole so replays stay idempotent.
      return [];
  }
}

function provenanceOf(event: Extract<GraphEvent, { type: 'run.finished' }>): Record<string, unknown> | undefined {
  const parley = {
    ...(event.sources ? { sources: event.sources } : {}),
    ...(event.references ? { references: event.references } : {}),
    ...(event.failedSteps ? { failedSteps: event.failedSteps } : {}),
  };
  return Object.keys(parley).length ? { parley } : undefined;
}

function finished(
  event: Extract<GraphEvent, { type: 'run.finished' }>,
  ids: TaskIds,
  state: Projection,
): AgentExecutionEvent[] {
  state.pending.clear();
  const out: AgentExecutionEvent[] = [];
  const meta = {
    parley: {
      event: event.type,
      runId: event.runId,
      status: event.status,
      usage: event.usage,
      durationMs: event.durationMs,
    },
  };
  if (event.status === 'completed') {
    const answer = event.answer ?? '';
    out.push(
      AgentEvent.artifactUpdate({
        ...ids,
        // Provenance as data (docs/protocols/a2a.md): the steps the answer was written from, what each
        // read by name, the numbered references an answer with citations cites, and what is missing.
        artifact: artifact(ANSWER_ARTIFACT_ID, 'answer', 'The final answer', [textPart(answer)], provenanceOf(event)),
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    out.push(
      AgentEvent.statusUpdate({
        ...ids,
        status: status(
          TaskState.TASK_STATE_COMPLETED,
          agentMessage(ids.taskId, ids.contextId, [textPart(answer)], messageIdOf(event)),
        ),
        metadata: meta,
      }),
    );
    return out;
  }
  const reason = event.error ?? `run ${event.status}`;
  out.push(
    AgentEvent.statusUpdate({
      ...ids,
      status: status(
        TERMINAL[event.status],
        agentMessage(ids.taskId, ids.contextId, [textPart(reason)], messageIdOf(event)),
      ),
      metadata: meta,
    }),
  );
  return out;
}
