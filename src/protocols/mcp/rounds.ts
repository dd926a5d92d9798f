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
 * `requestState` names the run, sealed with the SDK's HMAC-SHA256 codec (`createRequestStateCodec`):
 * signed with a key the client never sees (state-key.ts), bound to the caller, valid for `ttlSeconds`.
 * A state that was tampered with, signed for another caller, expired or not Parley's at all is refused
 * before the handler runs (the SDK's -32602 "Invalid or expired requestState"; the reason is logged).
 * Every round still checks that the run belongs to the caller (the verify hook below, and the broker's
 * caller-scoped look-ups), so even a valid state carries no authority of its own.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { canSee, type Caller, type KnowledgeReads, type RunEngine, type RunResult } from '../../graph/contract.ts';
import type { ApprovalRequest } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { decisionFrom, elicitationFor } from './run.ts';
import { MAX_WAIT_MS, waitForTurn } from './pending.ts';
import type { StateKeySource } from './state-key.ts';

/** What a round's `requestState` carries. */
export interface RoundState {
  runId: string;
}

/** How `requestState` is signed: the key (shared by every replica that may get the retry) and how long it lives. */
export interface StateSealing {
  key: StateKeySource;
  ttlSeconds: number;
}

export interface RoundDeps {
  engine: RunEngine;
  store: KnowledgeReads;
  logger: Logger;
  caller: Caller;
  sealing: StateSealing;
}

async function codecFor(deps: RoundDeps) {
  return createRequestStateCodec<RoundState>({
    key: await deps.sealing.key(),
    ttlSeconds: deps.sealing.ttlSeconds,
    // A state minted for one caller is refused for another, whatever run it names.
    bind: () => deps.caller.id,
  });
}

/**
 * The `requestState.verify` hook: the state's seal checked, then the run it names, for a run this
 * caller may see (running anywhere in the cluster, or recorded). Throws otherwise; the SDK answers
 * -32602 and the handler never runs.
 */
export function verifyState(deps: RoundDeps): (state: string, ctx: ServerContext) => Promise<RoundState> {
  return async (state, ctx) => {
    let runId: string;
    try {
      ({ runId } = await (await codecFor(deps)).verify(state, ctx));
    } catch (error) {
      // The codec's reason is a fixed code: malformed, mac, expired or bind.
      deps.logger.info('mcp: a requestState was refused', { reason: (error as Error).message, caller: deps.caller.id });
      throw error;
    }
    if (typeof runId !== 'string') throw new Error('malformed');
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
export async function askAgain(
  runId: string,
  pending: ApprovalRequest[],
  ctx: ServerContext,
  deps: RoundDeps,
): Promise<InputRequiredResult> {
  const requestState = await (await codecFor(deps)).mint({ runId }, ctx);
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
    if (pending.length > 0) return { status: 'input_required', answer: await askAgain(runId, pending, ctx, deps) };
    const ended = await Promise.race([handle.result, delay(SETTLE_POLL_MS)]);
    if (ended) return { status: 'finished', result: ended };
    // Still running with nothing to ask: the client retries with the state alone and waits again.
    if (Date.now() >= deadline) return { status: 'input_required', answer: await askAgain(runId, [], ctx, deps) };
  }
}

/** How long a round waits between looks while an answered approval is still being settled. */
const SETTLE_POLL_MS = 50;

const delay = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));
