/**
 * Reads an approval decision out of an A2A follow-up message: a data part with the same body
 * POST /api/approve takes ({request_id, decisions, feedback} or {request_id, action, content}).
 * request_id may be left out when exactly one approval of the task is pending.
 * The decision is checked against the request before anything happens (bad input changes nothing).
 */
import { z } from 'zod';
import type { Message } from '@a2a-js/sdk';
import type { ApprovalDecision, ApprovalRequest, ToolDecision } from '../../hitl/types.ts';
import { checkDecision } from '../../hitl/decision-check.ts';
import { dataOf } from './parts.ts';

const toolChoice = z.union([
  z.literal('accept'),
  z.literal('deny'),
  z.object({ edit: z.record(z.string(), z.unknown()) }).strict(),
]);

export const ResumeDataSchema = z
  .object({
    request_id: z.string().min(1).optional(),
    decisions: z.record(z.string().min(1), toolChoice).optional(),
    feedback: z.string().max(10_000).optional(),
    action: z.enum(['accept', 'decline', 'cancel']).optional(),
    content: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((b) => (b.decisions === undefined) !== (b.action === undefined), {
    message: 'send decisions (tool approval) or action (elicitation), exactly one of them',
  });
type ResumeData = z.infer<typeof ResumeDataSchema>;

export type ResumeCheck = { ok: true; requestId: string; decision: ApprovalDecision } | { ok: false; message: string };

function toDecision(body: ResumeData): ApprovalDecision {
  if (body.action !== undefined)
    return { kind: 'elicitation', action: body.action, ...(body.content ? { content: body.content } : {}) };
  const decisions: Record<string, ToolDecision> = {};
  for (const [id, d] of Object.entries(body.decisions ?? {}))
    decisions[id] = typeof d === 'string' ? { type: d } : { type: 'edit', args: d.edit };
  return { kind: 'tool', decisions, ...(body.feedback !== undefined ? { feedback: body.feedback } : {}) };
}

/** The decision a resume message carries, checked against the task's pending approvals. */
export function readResume(message: Message | undefined, pending: ApprovalRequest[]): ResumeCheck {
  const candidates = dataOf(message).filter((d) => 'decisions' in d || 'action' in d);
  if (candidates.length !== 1) {
    return {
      ok: false,
      message:
        'this task is waiting for an approval: send one data part {request_id, decisions: {<toolCallId>: "accept"|"deny"}} ' +
        `(or {request_id, action} for an elicitation); pending: ${pending.map((r) => r.id).join(', ') || 'none'}`,
    };
  }
  const parsed = ResumeDataSchema.safeParse(candidates[0]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      ok: false,
      message: `approval data part: ${issue.path.map(String).join('.') || 'body'}: ${issue.message}`,
    };
  }
  const requestId = parsed.data.request_id ?? (pending.length === 1 ? pending[0]!.id : undefined);
  if (requestId === undefined)
    return {
      ok: false,
      message: `request_id is required: ${pending.length} approvals are pending (${pending.map((r) => r.id).join(', ')})`,
    };
  const request = pending.find((r) => r.id === requestId);
  if (!request) return { ok: false, message: `approval ${requestId} is not pending for this task` };
  const checked = checkDecision(request, toDecision(parsed.data));
  return checked.ok ? { ok: true, requestId, decision: checked.decision } : { ok: false, message: checked.message };
}
