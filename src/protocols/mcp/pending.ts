/**
 * The `input_required` answer of Parley's MCP tools: a run that waits for a human, its pending
 * approvals (tool call ids, tools, arguments, why) and, for each, the exact `approve` call that
 * answers it, then the `get_run` call that waits for what comes next. A client without elicitation
 * (or whose elicitation failed) reads this instead of blocking until the approval times out.
 *
 * MCP tasks (tasks/get, tasks/result) would be the protocol's own shape for this, but the SDK
 * (2.4.0) has no runtime for them (2025-11-25 wire vocabulary only), so these are plain tools.
 */
import { z } from 'zod';
import type { RunHandle } from '../../graph/contract.ts';
import type { ApprovalRequest } from '../../hitl/types.ts';

/** The longest `get_run` wait: under the SDK's 60 s request timeout, so a waiting call never times out. */
export const MAX_WAIT_MS = 50_000;
/** The wait the answer suggests for the next `get_run`. */
const SUGGESTED_WAIT_MS = 30_000;

const toolCallShape = z.object({
  toolCallId: z.string(),
  tool: z.string(),
  arguments: z.unknown(),
  reason: z.string(),
});

const nextCallShape = z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) });

export const pendingShape = z.object({
  requestId: z.string(),
  kind: z.enum(['tool', 'elicitation']),
  toolCalls: z.array(toolCallShape).optional(),
  source: z.string().optional(),
  message: z.string().optional(),
  requestedSchema: z.record(z.string(), z.unknown()).optional(),
  expiresAt: z.string(),
  answerWith: nextCallShape.describe('The approve call that answers this request (accept all; use "deny" to refuse).'),
});

/** The fields an `input_required` answer adds to a run's status. */
export const inputRequiredFields = {
  pending: z.array(pendingShape).optional().describe('Approvals the run waits for (status input_required).'),
  then: nextCallShape.optional().describe('The call that waits for the run after answering.'),
  elicitationError: z
    .string()
    .optional()
    .describe('Why asking through elicitation failed, when it did (answer with approve instead).'),
};

export type Pending = z.infer<typeof pendingShape>;

export function pendingOf(request: ApprovalRequest): Pending {
  if (request.kind === 'elicitation')
    return {
      requestId: request.id,
      kind: 'elicitation',
      source: request.source,
      message: request.message,
      ...(request.requestedSchema ? { requestedSchema: request.requestedSchema } : {}),
      expiresAt: request.expiresAt,
      answerWith: { tool: 'approve', arguments: { request_id: request.id, action: 'accept', content: {} } },
    };
  return {
    requestId: request.id,
    kind: 'tool',
    toolCalls: request.toolCalls.map((c) => ({
      toolCallId: c.toolCallId,
      tool: c.tool,
      arguments: c.args,
      reason: c.reason,
    })),
    expiresAt: request.expiresAt,
    answerWith: {
      tool: 'approve',
      arguments: {
        request_id: request.id,
        decisions: Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, 'accept'])),
      },
    },
  };
}

/** The `input_required` status of run `runId` waiting for `pending`. */
export function inputRequired(runId: string, pending: ApprovalRequest[], elicitationError?: string) {
  return {
    status: 'input_required' as const,
    pending: pending.map(pendingOf),
    then: { tool: 'get_run', arguments: { run_id: runId, waitMs: SUGGESTED_WAIT_MS } },
    ...(elicitationError !== undefined ? { elicitationError } : {}),
  };
}

/** One line per pending request for the text content: what waits and how to answer it. */
export function inputRequiredText(runId: string, pending: Pending[], elicitationError?: string): string {
  const lines = [
    ...(elicitationError !== undefined ? [`Asking through elicitation failed (${elicitationError}).`] : []),
    `Run ${runId} needs your approval:`,
    ...pending.map((p) =>
      p.kind === 'tool'
        ? `- request ${p.requestId}: ${p.toolCalls!.map((c) => `${c.tool} ${JSON.stringify(c.arguments)} (call ${c.toolCallId}; ${c.reason})`).join(', ')}`
        : `- request ${p.requestId}: ${p.source} asks: ${p.message}`,
    ),
    ...pending.map((p) => `Answer with approve ${JSON.stringify(p.answerWith.arguments)} (or "deny").`),
    `Then call get_run ${JSON.stringify({ run_id: runId, waitMs: SUGGESTED_WAIT_MS })} for the result.`,
  ];
  return lines.join('\n');
}

/** Whether approval `requestId` of the run still waits on a human (not decided, timed out or cancelled). */
export const isPending = (handle: RunHandle, requestId: string): boolean =>
  handle.pendingApprovals().some((r) => r.id === requestId);

/**
 * Waits up to `waitMs` until run `handle` ends or waits for a human (an approval of it is pending),
 * whichever comes first; returns at once when one already holds.
 */
export async function waitForTurn(handle: RunHandle, waitMs: number): Promise<void> {
  if (waitMs <= 0 || handle.pendingApprovals().length > 0) return;
  const events = handle.events()[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  const needsHuman = (async () => {
    for (;;) {
      const next = await events.next();
      if (next.done) return;
      if (next.value.type === 'approval.requested' && isPending(handle, next.value.request.id)) return;
    }
    // The run's stream ended early (a slow consumer detached): the approval is still listed by get_run.
  })().catch(() => undefined);
  try {
    await Promise.race([handle.result, needsHuman, timeUp]);
  } finally {
    clearTimeout(timer);
    await events.return?.();
  }
}
