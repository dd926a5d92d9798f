/**
 * Approvals as multi-round-trip requests (MCP 2026-07-28, basic/patterns/mrtr): when a run of `ask`
 * waits for a human, the tool answers `input_required` with one form elicitation per pending approval
 * (keyed by the approval's request id; for a tool approval one accept/deny field per tool call, titled
 * with the tool and described with its arguments) and a `requestState` naming the run. The client
 * retries the same `tools/call` with the answers (`inputResponses`) and the state; the retry resolves
 * the approvals, waits for the run to end or to need a human again, and answers with the result or the
 * next `input_required`. Nothing is held between rounds in this process: the run is found through the
 * engine (on replicas, the run store and cluster), so any replica serves any round.
 *
 * `requestState` is the run id, base64url JSON. It carries no authority: every round checks that the
 * run belongs to the caller (the verify hook below, and the broker's caller-scoped look-ups), so a
 * forged or foreign state gets the spec's "Invalid or expired requestState" and changes nothing.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { canSee, type Caller, type KnowledgeReads, type RunEngine, type RunResult } from '../../graph/contract.ts';
import type { ApprovalRequest } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { decisionFrom, elicitationFor } from './run.ts';
import { MAX_WAIT_MS, waitForTurn } from './pending.ts';

/** What a round's `requestState` carries. */
export interface RoundState {
  runId: string;
}

const stateShape = z.object({ v: z.literal(1), runId: z.string().min(1).max(200) });

export function mintState(runId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, runId })).toString('base64url');
}

export interface RoundDeps {
  engine: RunEngine;
  store: KnowledgeReads;
  logger: Logger;
  caller: Caller;
}

/**
 * The `requestState.verify` hook: the state decoded, for a run this caller may see (running anywhere in
 * the cluster, or recorded). Throws otherwise; the SDK answers -32602 and the handler never runs.
 */
export function verifyState(deps: RoundDeps): (state: string) => Promise<RoundState> {
  return async (state) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(state, 'base64url').toString('utf8'));
    } catch {
      throw new Error('malformed');
    }
    const parsed = stateShape.safeParse(decoded);
    if (!parsed.success) throw new Error('malformed');
    const { runId } = parsed.data;
    if (deps.engine.get(runId, deps.caller)) return { runId };
    const run = await deps.store.getRun(runId);
    if (run && canSee(deps.caller, run.callerId)) return { runId };
    throw new Error('unknown run');
  };
}

/** Whether the request declared form elicitation in its `_meta` envelope (2026-07-28 capabilities are per request). */
export function requestCanElicit(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: Record<string, unknown> } | undefined;
  const e = caps?.elicitation;
  return e !== undefined && (e.form !== undefined || Object.keys(e).length === 0);
}

/** The `input_required` answer for run `runId` waiting on `pending` (empty: still running, retry to wait on). */
export function askAgain(runId: string, pending: ApprovalRequest[]): InputRequiredResult {
  const requestState = mintState(runId);
  if (pending.length === 0) return inputRequired({ requestState });
  return inputRequired({
    inputRequests: Object.fromEntries(pending.map((r) => [r.id, inputRequired.elicit(elicitationFor(r))])),
    requestState,
  });
}

/** How a run ended, from its handle or (evicted from memory) from its record, which has no usage totals. */
export type Ended = Pick<RunResult, 'runId' | 'threadId' | 'status' | 'durationMs' | 'answer' | 'error'> &
  Partial<RunResult>;

export type Round = { status: 'finished'; result: Ended } | { status: 'input_required'; answer: InputRequiredResult };

/**
 * A retried `ask`: applies the answers it carries to the run's pending approvals, then waits (at most
 * MAX_WAIT_MS) for the run to end or to need a human. Answers for approvals no longer pending (decided
 * elsewhere, timed out) are skipped; a pending approval the retry left unanswered is asked again.
 */
export async function nextRound(runId: string, ctx: ServerContext, deps: RoundDeps): Promise<Round | undefined> {
  const { caller } = deps;
  const handle = deps.engine.get(runId, caller);
  const responses = ctx.mcpReq.inputResponses ?? {};
  const answered = new Set<string>();
  for (const key of Object.keys(responses)) {
    const request = handle?.pendingApprovals().find((r) => r.id === key);
    const view = inputResponse(responses, key);
    if (!handle || !request || view.kind !== 'elicit') continue;
    const decision = decisionFrom(request, view.action, view.content);
    const answer = await handle.resolve(key, decision, `mcp:${caller.id}`);
    answered.add(key);
    if (!answer.ok)
      deps.logger.info('mcp: an input response was not applied', { requestId: key, reason: answer.message });
  }
  if (!handle) {
    const run = await deps.store.getRun(runId);
    if (!run || !canSee(caller, run.callerId)) return undefined;
    const { id, threadId, status, answer, error, durationMs } = run;
    return {
      status: 'finished',
      result: { runId: id, threadId, status, durationMs, ...(answer ? { answer } : {}), ...(error ? { error } : {}) },
    };
  }
  // An approval just answered may stay listed a moment (its decision is being stored): it is not asked again.
  const deadline = Date.now() + MAX_WAIT_MS;
  for (;;) {
    await waitForTurn(handle, deadline - Date.now());
    const pending = handle.pendingApprovals().filter((r) => !answered.has(r.id));
    if (pending.length > 0) return { status: 'input_required', answer: askAgain(runId, pending) };
    const ended = await Promise.race([handle.result, delay(SETTLE_POLL_MS)]);
    if (ended) return { status: 'finished', result: ended };
    // Still running with nothing to ask: the client retries with the state alone and waits again.
    if (Date.now() >= deadline) return { status: 'input_required', answer: askAgain(runId, []) };
  }
}

/** How long a round waits between looks while an answered approval is still being settled. */
const SETTLE_POLL_MS = 50;

const delay = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));
