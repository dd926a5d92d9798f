/**
 * The standard AG-UI interrupt for approvals: pending broker requests become RUN_FINISHED
 * `outcome: { type: "interrupt", interrupts }`, and the `resume` entries of the client's next run on
 * the same thread become decisions answered through the run's handle (RunHandle.resolve — the same
 * futures /api/approve settles). One interrupt per tool call (id `<requestId>::<toolCallId>`), one per elicitation (id
 * `<requestId>`). Payloads (docs/protocols/agui.md):
 *   tool:        { "decision": "accept" | "deny" | "edit", "args"?: {...}, "feedback"?: "..." }  (or "accept" / "deny")
 *   elicitation: the requested content object (accept); status "cancelled" → cancel
 * A cancelled tool interrupt is a deny.
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { z } from 'zod';
import { checkDecision } from '../../hitl/decision-check.ts';
import type { ApprovalDecision, ApprovalRequest, ToolDecision } from '../../hitl/types.ts';

const SEPARATOR = '::';

export function interruptsFor(requests: ApprovalRequest[]): Interrupt[] {
  return requests.flatMap((r): Interrupt[] => {
    if (r.kind === 'elicitation') {
      return [
        {
          id: r.id,
          reason: 'elicitation',
          message: r.message,
          responseSchema: r.requestedSchema ?? { type: 'object' },
          expiresAt: r.expiresAt,
          metadata: { requestId: r.id, source: r.source },
        },
      ];
    }
    return r.toolCalls.map((call) => ({
      id: `${r.id}${SEPARATOR}${call.toolCallId}`,
      reason: 'tool_approval',
      message: `Approve ${call.tool}? (${call.reason})`,
      toolCallId: call.toolCallId,
      responseSchema: toolResponseSchema(call.inputSchema),
      expiresAt: r.expiresAt,
      metadata: { requestId: r.id, tool: call.tool, args: call.args },
    }));
  });
}

function toolResponseSchema(inputSchema: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      decision: { type: 'string', enum: ['accept', 'deny', 'edit'] },
      args: inputSchema ?? { type: 'object', description: 'Replacement arguments, with decision "edit".' },
      feedback: { type: 'string' },
    },
    required: ['decision'],
  };
}

const ToolPayloadSchema = z.union([
  z.enum(['accept', 'deny']).transform((decision) => ({ decision, args: undefined, feedback: undefined })),
  z.object({
    decision: z.enum(['accept', 'deny', 'edit']),
    args: z.record(z.string(), z.unknown()).optional(),
    feedback: z.string().max(10_000).optional(),
  }),
]);

export interface Resolution {
  requestId: string;
  decision: ApprovalDecision;
}

/** Pending approvals by id, as the caller may see them (RunEngine.approval): undefined when not pending. */
export interface PendingApprovals {
  get(requestId: string): ApprovalRequest | undefined;
}

export type ResumePlan =
  { ok: true; resolutions: Resolution[] } | { ok: false; field: string; message: string; foreign?: true };

/** The run whose interrupts the entries name: the run of the first one still pending, if any. */
export function runNamedBy(entries: ResumeEntry[], approvals: PendingApprovals): string | undefined {
  for (const entry of entries) {
    const request = approvals.get(entry.interruptId.split(SEPARATOR, 1)[0]!);
    if (request) return request.runId;
  }
  return undefined;
}

/**
 * Turns resume entries into one checked decision per still-pending broker request of `runId` (the
 * thread's suspended run). An entry naming a pending interrupt of any other run is refused as
 * `foreign`: a resume answers only its own thread's run. Requests no longer pending (answered
 * elsewhere, timed out) are skipped: the run's events say what happened. Nothing is resolved here,
 * so a bad entry changes nothing.
 */
export function planResume(entries: ResumeEntry[], approvals: PendingApprovals, runId: string): ResumePlan {
  const tool = new Map<
    string,
    { request: Extract<ApprovalRequest, { kind: 'tool' }>; decisions: Record<string, ToolDecision>; feedback: string[] }
  >();
  const resolutions: Resolution[] = [];
  for (const [i, entry] of entries.entries()) {
    const field = `resume.${i}`;
    const [requestId, toolCallId] = entry.interruptId.split(SEPARATOR, 2) as [string, string | undefined];
    const request = approvals.get(requestId);
    if (!request) continue;
    if (request.runId !== runId) {
      return {
        ok: false,
        foreign: true,
        field: `${field}.interruptId`,
        message: `${field}.interruptId: ${entry.interruptId} is not an interrupt of this thread's suspended run; nothing was resolved`,
      };
    }
    if (request.kind === 'elicitation') {
      if (entry.status === 'cancelled')
        resolutions.push({ requestId, decision: { kind: 'elicitation', action: 'cancel' } });
      else {
        const content: unknown = entry.payload ?? {};
        if (typeof content !== 'object' || content === null || Array.isArray(content)) {
          return {
            ok: false,
            field: `${field}.payload`,
            message: `${field}.payload: an elicitation answer is a JSON object`,
          };
        }
        resolutions.push({
          requestId,
          decision: { kind: 'elicitation', action: 'accept', content: content as Record<string, unknown> },
        });
      }
      continue;
    }
    if (!toolCallId || !request.toolCalls.some((c) => c.toolCallId === toolCallId)) {
      return {
        ok: false,
        field: `${field}.interruptId`,
        message: `${field}.interruptId: ${entry.interruptId} names no tool call of approval ${requestId}`,
      };
    }
    const group = tool.get(requestId) ?? { request, decisions: {}, feedback: [] };
    tool.set(requestId, group);
    if (entry.status === 'cancelled') {
      group.decisions[toolCallId] = { type: 'deny' };
      continue;
    }
    const payload = ToolPayloadSchema.safeParse(entry.payload);
    if (!payload.success) {
      return {
        ok: false,
        field: `${field}.payload`,
        message: `${field}.payload: expected { "decision": "accept" | "deny" | "edit", "args"?, "feedback"? }`,
      };
    }
    const { decision, args, feedback } = payload.data;
    if (decision === 'edit' && !args)
      return {
        ok: false,
        field: `${field}.payload.args`,
        message: `${field}.payload.args: an edit needs the replacement args`,
      };
    group.decisions[toolCallId] = decision === 'edit' ? { type: 'edit', args: args! } : { type: decision };
    if (feedback) group.feedback.push(feedback);
  }
  for (const [requestId, group] of tool) {
    const missing = group.request.toolCalls.filter((c) => !(c.toolCallId in group.decisions));
    if (missing.length) {
      return {
        ok: false,
        field: 'resume',
        message: `resume: no answer for interrupt ${requestId}${SEPARATOR}${missing[0]!.toolCallId}`,
      };
    }
    const decision: ApprovalDecision = {
      kind: 'tool',
      decisions: group.decisions,
      ...(group.feedback.length ? { feedback: group.feedback.join('\n') } : {}),
    };
    resolutions.push({ requestId, decision });
  }
  for (const r of resolutions) {
    const request = approvals.get(r.requestId)!;
    const checked = checkDecision(request, r.decision);
    if (!checked.ok) return { ok: false, field: 'resume', message: `resume: ${checked.message}` };
  }
  return { ok: true, resolutions };
}

/** Where each thread's interrupted run stopped streaming, so its resume continues from there. */
export class SuspendedThreads {
  readonly #byThread = new Map<string, { runId: string; afterSeq: number }>();

  suspend(threadId: string, runId: string, afterSeq: number): void {
    this.#byThread.set(threadId, { runId, afterSeq });
  }

  get(threadId: string): { runId: string; afterSeq: number } | undefined {
    return this.#byThread.get(threadId);
  }

  /** Forgets the thread's entry if it still points at this run. */
  release(threadId: string, runId: string): void {
    if (this.#byThread.get(threadId)?.runId === runId) this.#byThread.delete(threadId);
  }
}
