/**
 * GraphEvent → AG-UI events for one AG-UI stream (one POST /ag-ui). Stateful because AG-UI is:
 * text messages and steps open and close, state travels as a snapshot then JSON Patch deltas, and
 * every stream ends with exactly one RUN_FINISHED or RUN_ERROR with nothing open. A stream that
 * continues a suspended run (interrupt → resume) first replays the history it already sent, silently,
 * to rebuild that state.
 *
 *   node.started/finished      STEP_STARTED/STEP_FINISHED (stepName = L0 node)
 *   plan/step/route/verify/…   STATE_SNAPSHOT once, then STATE_DELTA (under state.parley)
 *   plan round, step status    ACTIVITY_SNAPSHOT per round, then ACTIVITY_DELTA (team progress, activity.ts)
 *   answer.delta               TEXT_MESSAGE_START / _CONTENT (never empty) / _END
 *   model.thought              REASONING_START, REASONING_MESSAGE_START / _CONTENT / _END, REASONING_END
 *                              (one reasoning message per run of consecutive thoughts)
 *   tool.started / finished    TOOL_CALL_START, _ARGS, _END / TOOL_CALL_RESULT
 *   route, step progress, approvals, verification, council, usage   CUSTOM (names in CUSTOM_EVENTS)
 *   run.finished               RUN_FINISHED (success | cancelled) or RUN_ERROR (failed | blocked)
 */
import { randomUUID } from 'node:crypto';
import { EventType, PROTOCOL_VERSION, type BaseEvent, type TokenUsage } from '@ag-ui/core';
import jsonPatch from 'fast-json-patch';
import type { GraphEvent, GraphEventOf, NodeName, UsageTotals } from '../../graph/contract.ts';
import type { ApprovalRequest } from '../../hitl/types.ts';
import { teamChange, teamSnapshot } from './activity.ts';
import { interruptsFor } from './interrupts.ts';
import { initialState, reduceState, type AguiState } from './state.ts';

/** CUSTOM event names Parley sends (documented in docs/protocols/agui.md). */
export const CUSTOM_EVENTS = {
  route: 'route_decided',
  stepProgress: 'step_progress',
  approvalRequired: 'approval_required',
  approvalResolved: 'approval_resolved',
  verification: 'verification',
  council: 'council_stage',
  usage: 'usage',
} as const;

export interface TranslatorOptions {
  threadId: string;
  /** The AG-UI run id of this stream (input.runId). */
  runId: string;
  /** The engine run it shows (the same id, except on a resumed stream). */
  engineRunId: string;
  /** End the stream with an interrupt outcome when an approval is requested. */
  interrupts: boolean;
  /** The run's approvals still pending (RunHandle.pendingApprovals). */
  pendingApprovals: () => ApprovalRequest[];
}

export interface Translation {
  events: BaseEvent[];
  /** The stream must end now: a terminal event or an interrupt was produced. */
  end?: 'finished' | 'interrupted';
}

export class AguiTranslator {
  readonly #o: TranslatorOptions;
  #state: AguiState;
  /** L0 nodes running in the engine, and those this stream has announced with STEP_STARTED. */
  readonly #running = new Set<NodeName>();
  readonly #announced = new Set<NodeName>();
  #messageId: string | undefined;
  /** The reasoning message open while model.thought events arrive in a row. */
  #reasoningId: string | undefined;
  #answered = false;
  #lastSeq = 0;
  /** Usage already reported by earlier streams of this run (AG-UI: a resumed run reports only its own calls). */
  #usageBefore: UsageTotals | undefined;
  #usageNow: UsageTotals | undefined;

  constructor(options: TranslatorOptions) {
    this.#o = options;
    this.#state = initialState(options.engineRunId);
  }

  /** Seq of the last engine event taken in (replayed or translated). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Takes in an event this client already received in an earlier stream, producing nothing. */
  replay(e: GraphEvent): void {
    this.#track(e);
    if (e.type === 'usage') this.#usageBefore = e.usage;
  }

  /**
   * RUN_STARTED, the state snapshot (and the team activity, if a plan is under way) and, on a resumed
   * stream, STEP_STARTED for nodes still running.
   */
  begin(): BaseEvent[] {
    const resumed = this.#lastSeq > 0;
    const events: BaseEvent[] = [
      {
        type: EventType.RUN_STARTED,
        threadId: this.#o.threadId,
        runId: this.#o.runId,
        protocolVersion: PROTOCOL_VERSION,
        metadata: { parleyRunId: this.#o.engineRunId, resumed },
        timestamp: Date.now(),
      },
      { type: EventType.STATE_SNAPSHOT, snapshot: this.#state, timestamp: Date.now() },
      // A resumed stream's client may not hold the team activity yet (another page, another replica).
      ...teamSnapshot(this.#state.parley, Date.now()),
    ];
    for (const node of this.#running) events.push(this.#stepStarted(node, Date.now()));
    return events;
  }

  translate(e: GraphEvent): Translation {
    const before = this.#state;
    this.#track(e);
    const at = Date.parse(e.at);
    const out: BaseEvent[] = [];
    const custom = (name: string, value: unknown) => out.push({ type: EventType.CUSTOM, name, value, timestamp: at });
    const delta = () => {
      const patch = jsonPatch.compare(before, this.#state);
      if (patch.length) out.push({ type: EventType.STATE_DELTA, delta: patch, timestamp: at });
      out.push(...teamChange(before.parley, this.#state.parley, at));
    };

    // Reasoning is open only while thoughts keep coming: anything else closes it first.
    if (e.type !== 'model.thought') out.push(...this.#endReasoning(at));
    switch (e.type) {
      case 'model.thought':
        if (e.text) out.push(...this.#reasoning(e.text, at));
        break;
      case 'node.started':
        // A run resumed after a restart starts again the nodes that were open when the process
        // stopped; this stream announced them already (begin()), and AG-UI allows one open step per name.
        if (!this.#announced.has(e.node)) out.push(this.#stepStarted(e.node, at));
        break;
      case 'node.finished':
        if (this.#announced.delete(e.node))
          out.push({ type: EventType.STEP_FINISHED, stepName: e.node, timestamp: at });
        break;
      case 'route.decided':
        custom(CUSTOM_EVENTS.route, {
          stage: e.stage,
          reason: e.reason,
          candidates: e.candidates ?? [],
          teamConfigId: e.teamConfigId,
        });
        break;
      case 'step.delta':
        custom(CUSTOM_EVENTS.stepProgress, { stepId: e.stepId, text: e.text });
        break;
      case 'tool.started':
        out.push(
          { type: EventType.TOOL_CALL_START, toolCallId: e.toolCallId, toolCallName: e.tool, timestamp: at },
          {
            type: EventType.TOOL_CALL_ARGS,
            toolCallId: e.toolCallId,
            delta: JSON.stringify(e.args ?? {}),
            timestamp: at,
          },
          { type: EventType.TOOL_CALL_END, toolCallId: e.toolCallId, timestamp: at },
        );
        break;
      case 'tool.finished':
        out.push({
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${e.toolCallId}:result`,
          toolCallId: e.toolCallId,
          content: e.result || (e.error ? `Error: ${e.error}` : e.status),
          timestamp: at,
        });
        break;
      case 'approval.requested':
        custom(CUSTOM_EVENTS.approvalRequired, approvalValue(e.request));
        break;
      case 'approval.resolved':
        custom(CUSTOM_EVENTS.approvalResolved, e.outcome);
        break;
      case 'verify.result':
        custom(CUSTOM_EVENTS.verification, {
          round: e.round,
          score: e.score,
          feedback: e.feedback,
          failedStepIds: e.failedStepIds,
          next: e.next,
        });
        break;
      case 'council.stage':
        custom(CUSTOM_EVENTS.council, {
          stage: e.stage,
          detail: e.detail,
          ...(e.labels ? { labels: e.labels } : {}),
          ...(e.verdict ? { verdict: e.verdict } : {}),
        });
        break;
      case 'usage':
        custom(CUSTOM_EVENTS.usage, e.usage);
        break;
      case 'answer.delta':
        if (e.text) out.push(...this.#text(e.text, at));
        break;
      case 'run.finished':
        delta();
        out.push(...this.#finish(e, at));
        return { events: out, end: 'finished' };
      default:
        break;
    }
    delta();

    if (e.type === 'approval.requested' && this.#o.interrupts) {
      const pending = this.#o.pendingApprovals();
      // Only a request still waiting suspends the stream (a replayed one may be answered already).
      if (pending.some((r) => r.id === e.request.id)) {
        out.push(...this.#interrupt(pending, at));
        return { events: out, end: 'interrupted' };
      }
    }
    return { events: out };
  }

  /**
   * A resumed stream whose run still waits on approvals the resume did not answer (their requests
   * were replayed, so no new event would ever end the stream): interrupt again at once, listing them.
   */
  stillWaiting(): Translation | undefined {
    if (!this.#o.interrupts || this.#lastSeq === 0) return undefined;
    const pending = this.#o.pendingApprovals();
    return pending.length ? { events: this.#interrupt(pending, Date.now()), end: 'interrupted' } : undefined;
  }

  #interrupt(pending: ApprovalRequest[], at: number): BaseEvent[] {
    return [
      ...this.#close(at),
      {
        type: EventType.RUN_FINISHED,
        threadId: this.#o.threadId,
        runId: this.#o.runId,
        outcome: { type: 'interrupt', interrupts: interruptsFor(pending) },
        ...(this.#usageNow ? { usage: [tokenUsage(since(this.#usageNow, this.#usageBefore))] } : {}),
        timestamp: at,
      } as BaseEvent,
    ];
  }

  /** Ends a stream the engine did not end (it failed underneath us): RUN_ERROR with nothing open. */
  abort(message: string): BaseEvent[] {
    return [
      ...this.#close(Date.now()),
      { type: EventType.RUN_ERROR, message, code: 'stream_failed', timestamp: Date.now() },
    ];
  }

  #track(e: GraphEvent): void {
    this.#lastSeq = e.seq;
    this.#state = reduceState(this.#state, e);
    if (e.type === 'node.started') this.#running.add(e.node);
    if (e.type === 'node.finished') this.#running.delete(e.node);
    if (e.type === 'answer.delta' && e.text) this.#answered = true;
    if (e.type === 'usage') this.#usageNow = e.usage;
  }

  #stepStarted(node: NodeName, at: number): BaseEvent {
    this.#announced.add(node);
    return { type: EventType.STEP_STARTED, stepName: node, timestamp: at };
  }

  #text(text: string, at: number): BaseEvent[] {
    const out: BaseEvent[] = [];
    if (!this.#messageId) {
      this.#messageId = randomUUID();
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.#messageId, role: 'assistant', timestamp: at });
    }
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#messageId, delta: text, timestamp: at });
    return out;
  }

  #reasoning(text: string, at: number): BaseEvent[] {
    const out: BaseEvent[] = [];
    if (!this.#reasoningId) {
      this.#reasoningId = randomUUID();
      out.push(
        { type: EventType.REASONING_START, messageId: this.#reasoningId, timestamp: at },
        { type: EventType.REASONING_MESSAGE_START, messageId: this.#reasoningId, role: 'reasoning', timestamp: at },
      );
    }
    out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: this.#reasoningId, delta: text, timestamp: at });
    return out;
  }

  #endReasoning(at: number): BaseEvent[] {
    const id = this.#reasoningId;
    if (!id) return [];
    this.#reasoningId = undefined;
    return [
      { type: EventType.REASONING_MESSAGE_END, messageId: id, timestamp: at },
      { type: EventType.REASONING_END, messageId: id, timestamp: at },
    ];
  }

  /** Closes what this stream opened: reasoning, the text message and announced steps. */
  #close(at: number): BaseEvent[] {
    const out: BaseEvent[] = [...this.#endReasoning(at)];
    if (this.#messageId) out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.#messageId, timestamp: at });
    this.#messageId = undefined;
    for (const node of this.#announced) out.push({ type: EventType.STEP_FINISHED, stepName: node, timestamp: at });
    this.#announced.clear();
    return out;
  }

  #finish(e: GraphEventOf<'run.finished'>, at: number): BaseEvent[] {
    const out: BaseEvent[] = [];
    // An answer that never streamed as deltas still reaches the client as a message.
    if (e.status === 'completed' && !this.#answered && e.answer) out.push(...this.#text(e.answer, at));
    out.push(...this.#close(at));
    const usage = [tokenUsage(since(e.usage, this.#usageBefore))];
    if (e.status === 'completed' || e.status === 'cancelled') {
      out.push({
        type: EventType.RUN_FINISHED,
        threadId: this.#o.threadId,
        runId: this.#o.runId,
        result: {
          status: e.status,
          ...(e.answer !== undefined ? { answer: e.answer } : {}),
          ...(e.error ? { error: e.error } : {}),
          // Provenance as data (docs/events.md): what the answer was written from, and its numbered references.
          ...(e.sources ? { sources: e.sources } : {}),
          ...(e.references ? { references: e.references } : {}),
          ...(e.failedSteps ? { failedSteps: e.failedSteps } : {}),
        },
        outcome: e.status === 'completed' ? { type: 'success' } : { type: 'cancelled' },
        usage,
        timestamp: at,
      });
    } else {
      out.push({
        type: EventType.RUN_ERROR,
        message: e.error ?? `the run ended ${e.status}`,
        code: e.status,
        usage,
        timestamp: at,
      });
    }
    return out;
  }
}

function approvalValue(r: ApprovalRequest) {
  const common = {
    requestId: r.id,
    runId: r.runId,
    kind: r.kind,
    stepId: r.stepId,
    expiresAt: r.expiresAt,
    resolveWith: 'POST /api/approve',
  };
  return r.kind === 'tool'
    ? {
        ...common,
        toolCalls: r.toolCalls.map((t) => ({
          toolCallId: t.toolCallId,
          tool: t.tool,
          args: t.args,
          reason: t.reason,
          annotations: t.annotations,
        })),
      }
    : { ...common, source: r.source, message: r.message, requestedSchema: r.requestedSchema };
}

function since(total: UsageTotals, before: UsageTotals | undefined): UsageTotals {
  if (!before) return total;
  return {
    ...total,
    inputTokens: total.inputTokens - before.inputTokens,
    outputTokens: total.outputTokens - before.outputTokens,
    cachedTokens: total.cachedTokens - before.cachedTokens,
  };
}

function tokenUsage(u: UsageTotals): TokenUsage {
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    totalTokens: u.inputTokens + u.outputTokens,
    cachedInputTokens: u.cachedTokens,
  };
}
