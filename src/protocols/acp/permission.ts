/**
 * Approvals → the ACP client. A tool approval becomes one `session/request_permission` per tool call
 * (ACP asks about one tool call at a time); the answers are collected and resolve the run's approval once,
 * with actor "acp". An elicitation goes out as `elicitation/create` when the client advertised form
 * elicitation; otherwise it stays pending for /api/approve (its timeout default applies) and the user
 * is told so.
 */
import {
  methods,
  type AgentContext,
  type ClientCapabilities,
  type ElicitationSchema,
  type PermissionOption,
  type RequestPermissionResponse,
  type ToolCallContent,
  type ToolKind,
} from '@agentclientprotocol/sdk';
import type {
  ApprovalDecision,
  ApprovalRequest,
  PendingToolCall,
  ToolAnnotations,
  ToolDecision,
} from '../../hitl/types.ts';
import type { RunHandle } from '../../graph/contract.ts';
import type { Logger } from '../../log.ts';
import type { AcpSession } from './session.ts';

export const ACP_ACTOR = 'acp';

export const OPTION = { allowOnce: 'allow_once', allowAlways: 'allow_always', rejectOnce: 'reject_once' } as const;

export interface PermissionDeps {
  session: AcpSession;
  client: AgentContext;
  /** The run asking: its approvals are answered through it. */
  run: Pick<RunHandle, 'resolve'>;
  clientCapabilities: ClientCapabilities | undefined;
  logger: Logger;
  /** Makes sure the client has seen the tool call (status pending) before it is asked about it; returns its ACP id. */
  announce(call: PendingToolCall): Promise<string>;
  /** Keeps content shown with the question (a diff) on the tool call for its later updates. */
  keep(toolCallId: string, content: ToolCallContent[]): void;
  /** Tells the user something outside the answer (an agent thought). */
  note(text: string): Promise<void>;
}

/**
 * Asks the client about one approval request and resolves it. `signal` aborts when the request is settled
 * elsewhere (another channel, timeout, cancellation) or the turn ends: outstanding client requests are then
 * withdrawn with $/cancel_request.
 */
export async function askClient(request: ApprovalRequest, deps: PermissionDeps, signal: AbortSignal): Promise<void> {
  const decision =
    request.kind === 'tool' ? await askTools(request, deps, signal) : await askElicitation(request, deps, signal);
  if (!decision || signal.aborted) return;
  const answer = await deps.run.resolve(request.id, decision, ACP_ACTOR);
  if (!answer.ok && answer.code !== 'already_resolved') {
    deps.logger.warn('acp: approval answer rejected', {
      requestId: request.id,
      code: answer.code,
      message: answer.message,
    });
  }
}

async function askTools(
  request: Extract<ApprovalRequest, { kind: 'tool' }>,
  deps: PermissionDeps,
  signal: AbortSignal,
): Promise<ApprovalDecision | undefined> {
  const decisions: Record<string, ToolDecision> = {};
  let feedback: string | undefined;
  for (const call of request.toolCalls) {
    if (feedback !== undefined) {
      decisions[call.toolCallId] = { type: 'deny' };
      continue;
    }
    if (deps.session.alwaysAllowed.has(call.tool)) {
      decisions[call.toolCallId] = { type: 'accept' };
      continue;
    }
    const toolCallId = await deps.announce(call);
    const content = previewContent(call);
    deps.keep(call.toolCallId, content);
    const response: RequestPermissionResponse = await deps.client.request(
      methods.client.session.requestPermission,
      {
        sessionId: deps.session.id,
        toolCall: {
          toolCallId,
          title: toolTitle(call.tool),
          kind: call.preview?.type === 'command' ? 'execute' : toolKind(call.annotations),
          status: 'pending',
          rawInput: call.args,
          ...(content.length ? { content } : {}),
          ...(call.preview?.type === 'diff' ? { locations: [{ path: call.preview.path }] } : {}),
        },
        options: permissionOptions(call),
        _meta: { parley: { approvalRequestId: request.id, reason: call.reason } },
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    const outcome = response.outcome;
    if (outcome.outcome === 'cancelled') {
      // The client withdrew the question (normally because the turn is being cancelled): nothing runs.
      decisions[call.toolCallId] = { type: 'deny' };
      feedback = 'The ACP client cancelled the permission request.';
      continue;
    }
    if (outcome.optionId === OPTION.allowAlways) deps.session.alwaysAllowed.add(call.tool);
    decisions[call.toolCallId] = {
      type: outcome.optionId === OPTION.allowOnce || outcome.optionId === OPTION.allowAlways ? 'accept' : 'deny',
    };
  }
  return { kind: 'tool', decisions, ...(feedback ? { feedback } : {}) };
}

async function askElicitation(
  request: Extract<ApprovalRequest, { kind: 'elicitation' }>,
  deps: PermissionDeps,
  signal: AbortSignal,
): Promise<ApprovalDecision | undefined> {
  if (!deps.clientCapabilities?.elicitation?.form) {
    await deps.note(
      `${request.source} asks: ${request.message}\nThis client cannot show forms; answer with POST /api/approve (request_id ${request.id}) before ${request.expiresAt}.`,
    );
    return undefined;
  }
  const response = await deps.client.request(
    methods.client.elicitation.create,
    {
      mode: 'form',
      sessionId: deps.session.id,
      message: `${request.source}: ${request.message}`,
      requestedSchema: (request.requestedSchema ?? { type: 'object', properties: {} }) as ElicitationSchema,
    },
    { cancellationSignal: signal, stopWaitingOnCancel: true },
  );
  if (response.action === 'accept') {
    const content =
      'content' in response && response.content ? (response.content as Record<string, unknown>) : undefined;
    return { kind: 'elicitation', action: 'accept', ...(content ? { content } : {}) };
  }
  return { kind: 'elicitation', action: response.action === 'decline' ? 'decline' : 'cancel' };
}

/** What the call would do, as the client shows it: an edit as a `diff`, a command as its line. */
export function previewContent(call: PendingToolCall): ToolCallContent[] {
  const preview = call.preview;
  if (!preview) return [];
  if (preview.type === 'diff')
    return [{ type: 'diff', path: preview.path, oldText: preview.oldText, newText: preview.newText }];
  return [{ type: 'content', content: { type: 'text', text: `$ ${preview.command}\n(in ${preview.cwd})` } }];
}

/** Allow always is offered unless the tool says it is destructive: those are asked about every time. */
export function permissionOptions(call: PendingToolCall): PermissionOption[] {
  const options: PermissionOption[] = [{ optionId: OPTION.allowOnce, name: 'Allow once', kind: 'allow_once' }];
  if (call.annotations?.destructiveHint !== true) {
    options.push({
      optionId: OPTION.allowAlways,
      name: `Always allow ${call.tool} in this session`,
      kind: 'allow_always',
    });
  }
  options.push({ optionId: OPTION.rejectOnce, name: 'Reject', kind: 'reject_once' });
  return options;
}

export function toolTitle(tool: string): string {
  return `Tool ${tool}`;
}

/** The icon hint ACP clients show, from the tool's MCP annotations (never from its name). */
export function toolKind(annotations: ToolAnnotations | undefined): ToolKind {
  if (annotations?.readOnlyHint) return annotations.openWorldHint ? 'fetch' : 'read';
  if (annotations?.destructiveHint) return 'edit';
  return 'other';
}
