/**
 * HTTP face of the approval broker: POST /api/approve resolves a pending request, GET
 * /api/approvals lists pending ones. Auth is the server's middleware (mount this app behind it).
 * Each caller sees and answers only its own runs' requests (an admin: every one); another caller's
 * request answers 404 exactly like an unknown id.
 * Errors use `{ "error": { "code", "message" } }` and never change broker state.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { callerOf } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { ApiError, jsonError } from '../http/errors.ts';
import type { ApprovalDecision, ApprovalPort, ResolveAnswer, ToolDecision } from './types.ts';

export interface ApprovalRoutesDeps {
  broker: ApprovalPort;
  /** Who is resolving; default: the caller id the auth middleware set ("key-…", or "anonymous" with auth off). */
  actorOf?: (c: Context) => string;
}

const toolDecisionBody = z.union([
  z.literal('accept'),
  z.literal('deny'),
  z.object({ edit: z.record(z.string(), z.unknown()) }).strict(),
]);

const approveBody = z
  .object({
    request_id: z.string().min(1).optional(),
    id: z.string().min(1).optional(),
    decisions: z.record(z.string().min(1), toolDecisionBody).optional(),
    feedback: z.string().max(10_000).optional(),
    action: z.enum(['accept', 'decline', 'cancel']).optional(),
    content: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (!b.request_id && !b.id)
      ctx.addIssue({ code: 'custom', path: ['request_id'], message: 'request_id (or id) is required' });
    if (b.request_id && b.id && b.request_id !== b.id) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'request_id and id differ; send one' });
    }
    if (b.decisions === undefined && b.action === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['decisions'],
        message: 'decisions (tool approval) or action (elicitation) is required',
      });
    }
    if (b.decisions !== undefined && b.action !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message: 'send decisions for a tool approval or action for an elicitation, not both',
      });
    }
  });

type ApproveBody = z.infer<typeof approveBody>;

const error = (c: Context, status: 400 | 404 | 409, code: string, message: string) =>
  jsonError(c, status, message, code);

function toDecision(body: ApproveBody): ApprovalDecision {
  if (body.action !== undefined) {
    return { kind: 'elicitation', action: body.action, ...(body.content ? { content: body.content } : {}) };
  }
  const decisions: Record<string, ToolDecision> = {};
  for (const [callId, d] of Object.entries(body.decisions ?? {})) {
    decisions[callId] = typeof d === 'string' ? { type: d } : { type: 'edit', args: d.edit };
  }
  return { kind: 'tool', decisions, ...(body.feedback !== undefined ? { feedback: body.feedback } : {}) };
}

function fieldOf(issue: z.core.$ZodIssue): string {
  return issue.path.length ? issue.path.map(String).join('.') : 'body';
}

export function approvalRoutes(deps: ApprovalRoutesDeps): Hono {
  const app = new Hono();
  const actorOf = deps.actorOf ?? ((c: Context) => callerOf(c).id);

  app.post('/api/approve', async (c) => {
    let raw: unknown;
    try {
      // 415 for a non-JSON type: a text/plain "simple request" from a web page must not approve anything.
      raw = await readJson(c);
    } catch (err) {
      if (err instanceof ApiError) return jsonError(c, err.status, err.message, err.code);
      throw err;
    }
    const parsed = approveBody.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const unrecognized = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
      return error(c, 400, 'invalid_request', `${fieldOf(issue)}: ${issue.message}${unrecognized}`);
    }
    const id = (parsed.data.request_id ?? parsed.data.id)!;
    const answer: ResolveAnswer = await deps.broker.resolve(id, toDecision(parsed.data), actorOf(c), callerOf(c));
    if (answer.ok) return c.json({ outcome: answer.outcome }, 200);
    if (answer.code === 'invalid') return error(c, 400, 'invalid_decision', answer.message);
    // A decision that came too late (the timeout, a cancellation or another human was first) is a
    // conflict with what happened, not a request for something that does not exist.
    return error(c, answer.code === 'already_resolved' ? 409 : 404, answer.code, answer.message);
  });

  app.get('/api/approvals', (c) => {
    const runId = c.req.query('runId') || undefined;
    return c.json({ approvals: deps.broker.listPending(runId, callerOf(c)) });
  });

  app.get('/api/approvals/:id', (c) => {
    const request = deps.broker.get(c.req.param('id'), callerOf(c));
    return request
      ? c.json({ approval: request })
      : error(c, 404, 'not_found', `no pending approval with id ${c.req.param('id')}`);
  });

  return app;
}
