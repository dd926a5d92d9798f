/**
 * Checks a human's decision against the request it answers: the kind matches, every tool call is
 * decided (and only those), edited arguments and elicitation content satisfy their JSON Schemas.
 * Returns a normalized copy; the broker applies nothing that did not pass.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { ApprovalDecision, ApprovalRequest, ToolDecision } from './types.ts';

export type DecisionCheck = { ok: true; decision: ApprovalDecision } | { ok: false; message: string };

const validators = new AjvJsonSchemaValidator();

/** Validates a value against a JSON Schema with the MCP SDK's bundled Ajv (dialect chosen by $schema). */
export function validateAgainstSchema(
  schema: Record<string, unknown>,
  value: unknown,
): { ok: true } | { ok: false; message: string } {
  let result;
  try {
    result = validators.getValidator(schema as never)(value);
  } catch (err) {
    return { ok: false, message: `the schema cannot be used for validation: ${(err as Error).message}` };
  }
  return result.valid ? { ok: true } : { ok: false, message: result.errorMessage };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function checkDecision(request: ApprovalRequest, decision: ApprovalDecision): DecisionCheck {
  if (!isPlainObject(decision) || decision.kind !== request.kind) {
    return {
      ok: false,
      message: `request ${request.id} is a ${request.kind} request; the answer must be a ${request.kind} decision`,
    };
  }
  return request.kind === 'tool'
    ? checkToolDecision(request, decision as Extract<ApprovalDecision, { kind: 'tool' }>)
    : checkElicitation(request, decision as Extract<ApprovalDecision, { kind: 'elicitation' }>);
}

function checkToolDecision(
  request: Extract<ApprovalRequest, { kind: 'tool' }>,
  decision: Extract<ApprovalDecision, { kind: 'tool' }>,
): DecisionCheck {
  const given = isPlainObject(decision.decisions) ? decision.decisions : {};
  const expected = new Set(request.toolCalls.map((c) => c.toolCallId));
  const unknown = Object.keys(given).filter((k) => !expected.has(k));
  if (unknown.length) return { ok: false, message: `decisions name unknown tool calls: ${unknown.join(', ')}` };
  const missing = [...expected].filter((k) => !(k in given));
  if (missing.length)
    return { ok: false, message: `decisions must cover every tool call; missing: ${missing.join(', ')}` };
  if (decision.feedback !== undefined && typeof decision.feedback !== 'string') {
    return { ok: false, message: 'feedback must be a string' };
  }

  const decisions: Record<string, ToolDecision> = {};
  for (const call of request.toolCalls) {
    const d = given[call.toolCallId] as ToolDecision;
    if (d?.type === 'accept' || d?.type === 'deny') {
      decisions[call.toolCallId] = { type: d.type };
    } else if (d?.type === 'edit') {
      if (!isPlainObject(d.args))
        return { ok: false, message: `edit of ${call.toolCallId}: args must be a JSON object` };
      if (call.inputSchema) {
        const valid = validateAgainstSchema(call.inputSchema, d.args);
        if (!valid.ok)
          return {
            ok: false,
            message: `edit of ${call.toolCallId} does not match ${call.tool}'s input schema: ${valid.message}`,
          };
      }
      decisions[call.toolCallId] = { type: 'edit', args: structuredClone(d.args) };
    } else {
      return { ok: false, message: `decision for ${call.toolCallId} must be accept, deny or edit` };
    }
  }
  return {
    ok: true,
    decision: { kind: 'tool', decisions, ...(decision.feedback ? { feedback: decision.feedback } : {}) },
  };
}

function checkElicitation(
  request: Extract<ApprovalRequest, { kind: 'elicitation' }>,
  decision: Extract<ApprovalDecision, { kind: 'elicitation' }>,
): DecisionCheck {
  const { action, content } = decision;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return { ok: false, message: 'action must be accept, decline or cancel' };
  }
  // Content only travels with an accept (MCP ElicitResult semantics).
  if (action !== 'accept') return { ok: true, decision: { kind: 'elicitation', action } };
  if (content !== undefined && !isPlainObject(content)) return { ok: false, message: 'content must be a JSON object' };
  if (request.requestedSchema) {
    const valid = validateAgainstSchema(request.requestedSchema, content ?? {});
    if (!valid.ok) return { ok: false, message: `content does not match the requested schema: ${valid.message}` };
  }
  return {
    ok: true,
    decision: { kind: 'elicitation', action, ...(content ? { content: structuredClone(content) } : {}) },
  };
}
