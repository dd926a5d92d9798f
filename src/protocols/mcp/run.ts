/**
 * Follows one engine run for an MCP tool call: progress notifications per node/step (when the
 * client sent a progressToken), approvals asked through elicitation when the client supports it
 * (otherwise announced with the request id so /api/approve or the `approve` tool can answer), and
 * the client's cancellation cancels the run.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { CouncilVerdict, GraphEvent, RunEngine, RunHandle, RunResult } from '../../graph/contract.ts';
import type { ApprovalDecision, ApprovalPort, ApprovalRequest } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';

export interface FollowDeps {
  engine: RunEngine;
  approvals: ApprovalPort;
  logger: Logger;
  /** Whether the connected client declared form elicitation. */
  canElicit: () => boolean;
}

export interface Followed {
  result: RunResult;
  verdict?: CouncilVerdict;
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
    case 'step.started':
      return `step ${e.stepId} started (${e.specialist})`;
    case 'step.finished':
      return `step ${e.stepId} ${e.status}`;
    case 'approval.requested':
      return `approval needed: request ${e.request.id} (answer with the approve tool or POST /api/approve)`;
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

function decisionFrom(
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

async function askHuman(
  request: ApprovalRequest,
  ctx: ServerContext,
  deps: FollowDeps,
  signal: AbortSignal,
): Promise<void> {
  if (!deps.canElicit()) {
    // No elicitation: the request id travels as a progress message (above) and a log line; another channel decides.
    await ctx.mcpReq
      .log('warning', {
        approvalNeeded: request.id,
        runId: request.runId,
        how: 'call the approve tool or POST /api/approve',
      })
      .catch(() => undefined);
    return;
  }
  const params =
    request.kind === 'tool'
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
  try {
    const answer = await ctx.mcpReq.elicitInput(params, { signal });
    const resolved = deps.approvals.resolve(
      request.id,
      decisionFrom(request, answer.action, answer.content as Record<string, unknown> | undefined),
      'mcp-elicitation',
    );
    if (!resolved.ok)
      deps.logger.info('mcp: elicitation answer not applied', { requestId: request.id, reason: resolved.message });
  } catch (err) {
    // Aborted (decided elsewhere, or the run ended) or the client failed: the request stays with the broker.
    if (!signal.aborted)
      deps.logger.warn('mcp: elicitation failed', { requestId: request.id, error: (err as Error).message });
  }
}

export async function followRun(handle: RunHandle, ctx: ServerContext, deps: FollowDeps): Promise<Followed> {
  const token = ctx.mcpReq._meta?.progressToken;
  const cancel = () => deps.engine.cancel(handle.id, 'cancelled by the MCP client');
  ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
  if (ctx.mcpReq.signal.aborted) cancel();
  const asking = new Map<string, AbortController>();
  let progress = 0;
  let verdict: CouncilVerdict | undefined;
  try {
    for await (const event of handle.events()) {
      const text = progressText(event);
      if (text !== undefined && token !== undefined) {
        progress += 1;
        await ctx.mcpReq
          .notify({ method: 'notifications/progress', params: { progressToken: token, progress, message: text } })
          .catch(() => undefined);
      }
      if (event.type === 'council.stage' && event.verdict) verdict = event.verdict;
      if (event.type === 'approval.requested') {
        const stop = new AbortController();
        asking.set(event.request.id, stop);
        void askHuman(event.request, ctx, deps, stop.signal);
      }
      if (event.type === 'approval.resolved') {
        asking.get(event.outcome.requestId)?.abort();
        asking.delete(event.outcome.requestId);
      }
    }
  } finally {
    ctx.mcpReq.signal.removeEventListener('abort', cancel);
    for (const stop of asking.values()) stop.abort();
  }
  return { result: await handle.result, verdict };
}
