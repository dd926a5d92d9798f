/**
 * Follows one engine run for an MCP tool call: progress notifications per node/step (when the
 * client sent a progressToken), every pending approval announced with its tool call ids (progress
 * message and a `warning` log notification), approvals asked through elicitation when the client
 * supports it, and the client's cancellation cancels the run (while the call is open).
 *
 * With `returnOnApproval`, a run that needs a human the client cannot be asked (no elicitation, or
 * its elicitation failed) ends the follow with `input_required` at once: the run goes on waiting
 * for the approval, and the tool answers how to give it (pending.ts).
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { CouncilVerdict, GraphEvent, RunEngine, RunHandle, RunResult } from '../../graph/contract.ts';
import type { ApprovalDecision, ApprovalRequest } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { isPending } from './pending.ts';

export interface FollowDeps {
  engine: RunEngine;
  logger: Logger;
  /** Whether the connected client declared form elicitation. */
  canElicit: () => boolean;
}

export type Followed =
  | { status: 'finished'; result: RunResult; verdict?: CouncilVerdict }
  /** The run waits for a human; `elicitationError` says why asking the client failed, when it did. */
  | { status: 'input_required'; elicitationError?: string };

export interface FollowOptions {
  /** Stop following (the run goes on) when an approval cannot be asked through elicitation. */
  returnOnApproval: boolean;
}

/** The tool calls of a tool approval, with their ids, for an announcement. */
function callsText(request: ApprovalRequest): string {
  if (request.kind !== 'tool') return ` from ${request.source}`;
  return ` for ${request.toolCalls.map((c) => `${c.tool} (call ${c.toolCallId})`).join(', ')}`;
}

/**
 * The log notification that announces a pending approval: its id, its run, its tool calls, how to answer.
 * A client that left misses it harmlessly (ignored failure): the run goes on and is found with get_run.
 */
function announce(request: ApprovalRequest, ctx: ServerContext): Promise<void> {
  return ctx.mcpReq
    .log('warning', {
      approvalNeeded: request.id,
      runId: request.runId,
      ...(request.kind === 'tool'
        ? {
            toolCalls: request.toolCalls.map((c) => ({
              toolCallId: c.toolCallId,
              tool: c.tool,
              arguments: c.args,
              reason: c.reason,
            })),
          }
        : { source: request.source, message: request.message }),
      how: 'answer through elicitation if asked, or call the approve tool, or POST /api/approve',
    })
    .catch(() => undefined);
}

/** A short human line for the events worth a progress notification; undefined for the rest. */
export function progressText(e: GraphEvent): string | undefined {
  switch (e.type) {
    case 'run.started':
      return `run ${e.runId} started`;
    case 'node.started':
      return `node ${e.node}`;
    case 'plan.ready':
      return `plan (round ${e.round}): ${e.plan.steps.map((s) => `${s.id}→${s.specialist}`).join(', ')}`;
    case 'step.spawned':
      return `${e.parentStepId} spawned ${e.stepId} (${e.role}, ${e.specialist}): ${e.objective}`;
    case 'message.sent':
      return `message ${e.from} → ${e.to === '*' ? 'every agent' : e.to}: ${e.preview}`;
    case 'context.written':
      return `${e.stepId} wrote team memory "${e.key}"`;
    case 'step.started':
      return `step ${e.stepId} started (${e.specialist})`;
    case 'step.finished':
      return `step ${e.stepId} ${e.status}`;
    case 'approval.requested':
      return `approval needed: request ${e.request.id}${callsText(e.request)} (answer with the approve tool or POST /api/approve)`;
    case 'council.stage':
      return `council: ${e.stage}`;
    case 'verify.result':
      return `verified: score ${e.score}`;
    default:
      return undefined;
  }
}

/** The flat form an elicitation may carry: one accept/deny choice per pending tool call. */
export function toolApprovalSchema(request: Extract<ApprovalRequest, { kind: 'tool' }>) {
  const properties: Record<
    string,
    { type: 'string'; title: string; description: string; enum: string[]; default: string }
  > = {};
  for (const call of request.toolCalls) {
    properties[call.toolCallId] = {
      type: 'string',
      title: call.tool,
      description: `${JSON.stringify(call.args)} (${call.reason})`,
      enum: ['accept', 'deny'],
      default: 'deny',
    };
  }
  return { type: 'object' as const, properties, required: Object.keys(properties) };
}

/** The broker's decision from an elicitation answer (its accept/deny per tool call, or the forwarded form). */
export function decisionFrom(
  request: ApprovalRequest,
  action: 'accept' | 'decline' | 'cancel',
  content: Record<string, unknown> | undefined,
): ApprovalDecision {
  if (request.kind === 'elicitation')
    return { kind: 'elicitation', action, ...(action === 'accept' && content ? { content } : {}) };
  const decisions = Object.fromEntries(
    request.toolCalls.map((c) => [
      c.toolCallId,
      { type: action === 'accept' && content?.[c.toolCallId] === 'accept' ? 'accept' : 'deny' } as const,
    ]),
  );
  return {
    kind: 'tool',
    decisions,
    ...(action === 'accept' ? {} : { feedback: `the user chose ${action} in the MCP client` }),
  };
}

/** The form elicitation that asks the human for `request`: accept/deny per tool call, or the forwarded form. */
export function elicitationFor(request: ApprovalRequest) {
  return request.kind === 'tool'
    ? {
        mode: 'form' as const,
        message: `Parley wants to run ${request.toolCalls.map((c) => c.tool).join(', ')}. Allow?`,
        requestedSchema: toolApprovalSchema(request),
      }
    : {
        mode: 'form' as const,
        message: `${request.source} asks: ${request.message}`,
        requestedSchema: (request.requestedSchema ?? { type: 'object', properties: {} }) as never,
      };
}

/**
 * Asks the client through elicitation and answers the run's approval with its answer. Resolves with the
 * failure's message when the client failed to answer (threw, errored, sent a malformed result), so
 * the caller can tell the client instead of leaving the approval to its timeout; undefined otherwise.
 */
async function askHuman(
  handle: RunHandle,
  request: ApprovalRequest,
  ctx: ServerContext,
  deps: FollowDeps,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const answer = await ctx.mcpReq.elicitInput(elicitationFor(request), { signal });
    const resolved = await handle.resolve(
      request.id,
      decisionFrom(request, answer.action, answer.content as Record<string, unknown> | undefined),
      'mcp-elicitation',
    );
    if (!resolved.ok)
      deps.logger.info('mcp: elicitation answer not applied', { requestId: request.id, reason: resolved.message });
    return undefined;
  } catch (err) {
    // Aborted: decided elsewhere, or the run ended. Otherwise the client failed; the request stays with the broker.
    if (signal.aborted) return undefined;
    const message = (err as Error).message;
    deps.logger.warn('mcp: elicitation failed', { requestId: request.id, error: message });
    await ctx.mcpReq
      .log('error', {
        elicitationFailed: request.id,
        runId: request.runId,
        error: message,
        how: 'call the approve tool or POST /api/approve',
      })
      // A notification to a client that left: the run goes on and is found with get_run.
      .catch(() => undefined);
    return message;
  }
}

export async function followRun(
  handle: RunHandle,
  ctx: ServerContext,
  deps: FollowDeps,
  options: FollowOptions,
): Promise<Followed> {
  const token = ctx.mcpReq._meta?.progressToken;
  const cancel = () => deps.engine.cancel(handle.id, 'cancelled by the MCP client');
  ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
  if (ctx.mcpReq.signal.aborted) cancel();
  const asking = new Map<string, AbortController>();
  // Settled by the first elicitation the client failed to answer (only read with returnOnApproval).
  let failed: (message: string) => void = () => undefined;
  const elicitationFailed = new Promise<{ failed: string }>((resolve) => {
    failed = (message) => resolve({ failed: message });
  });
  const events = handle.events()[Symbol.asyncIterator]();
  let progress = 0;
  let verdict: CouncilVerdict | undefined;
  try {
    for (;;) {
      const next = await Promise.race([events.next(), elicitationFailed]);
      if ('failed' in next) return { status: 'input_required', elicitationError: next.failed };
      if (next.done) break;
      const event = next.value;
      const text = progressText(event);
      if (text !== undefined && token !== undefined) {
        progress += 1;
        await ctx.mcpReq
          .notify({ method: 'notifications/progress', params: { progressToken: token, progress, message: text } })
          // Progress is advisory; a client gone meanwhile misses nothing it can ask again.
          .catch(() => undefined);
      }
      if (event.type === 'council.stage' && event.verdict) verdict = event.verdict;
      if (event.type === 'approval.requested') {
        await announce(event.request, ctx);
        if (!deps.canElicit()) {
          // Still pending (not settled by a timeout in between): the client must answer it.
          if (options.returnOnApproval && isPending(handle, event.request.id)) return { status: 'input_required' };
          continue;
        }
        const stop = new AbortController();
        asking.set(event.request.id, stop);
        void askHuman(handle, event.request, ctx, deps, stop.signal).then((error) => {
          if (error !== undefined && options.returnOnApproval) failed(error);
        });
      }
      if (event.type === 'approval.resolved') {
        asking.get(event.outcome.requestId)?.abort();
        asking.delete(event.outcome.requestId);
      }
    }
  } finally {
    ctx.mcpReq.signal.removeEventListener('abort', cancel);
    for (const stop of asking.values()) stop.abort();
    await events.return?.();
  }
  return { status: 'finished', result: await handle.result, verdict };
}
