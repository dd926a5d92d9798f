/**
 * The LLM tool loop shared by `prompt` and `mcp` specialists: the model is offered the tools as
 * OpenAI function tools (names sanitized, mapped back to `server/tool`), each requested call goes
 * through the approval guard and the tool budget, and results go back to the model until it answers
 * in text or config.engine.toolLoopMaxIterations turns are used.
 */
import { needsApproval } from '../../hitl/guard.ts';
import type { ApprovalPort } from '../../hitl/types.ts';
import type { ChatMessage, ChatTool, ModelRole, ToolCall } from '../../llm/types.ts';
import type { ToolDescriptor, ToolInspection } from '../../tools/types.ts';
import type { NamedSource, StepLineage, UsageTotals } from '../run/events.ts';
import { addNamed, callTargets, namedSourcesOfCall } from './named-sources.ts';
import type { StepClock } from '../planning/scheduler.ts';
import { emit, type EngineContext, type RunState } from '../run/state.ts';
import { addUsage } from '../spending/usage.ts';
import type { UserContent } from '../prompting/user-content.ts';
import type { AgentHooks } from '../dynamic/agent-tools.ts';

export interface ToolLoopInput {
  run: RunState;
  ctx: EngineContext;
  stepId: string;
  signal: AbortSignal;
  /** The step's timeout clock: paused while a tool call of the step waits on a human. */
  clock?: StepClock;
  role: ModelRole;
  /** The plan step's model, overriding the role's (and the request's) for these calls. */
  model?: string;
  system: string;
  user: UserContent;
  tools: ToolDescriptor[];
  /** Ids of `tools` served by the run's session host (RunState.sessionTools) rather than the configured one. */
  fromSession?: Set<string>;
  /** Accumulates the step's usage, tool calls and sources (its lineage). */
  usage: UsageTotals;
  toolCalls: StepLineage['toolCalls'];
  sources: string[];
  /** What the step's successful tool calls read or wrote, by name (named-sources.ts). */
  named?: NamedSource[];
  /** A team agent's built-in tools and between-turn hooks (dynamic teams, dynamic/agent-tools.ts). */
  agent?: AgentHooks;
}

/** What a denied call's tool result starts and ends with; step-note.ts quotes both to the model. */
export const DENIED_BY_HUMAN = 'A human reviewer denied this tool call.';
export const DENIED_TAIL = 'Do not retry it; continue without it.';
/** What a successful call that returned nothing reads as (an empty file, a tool with no output). */
export const EMPTY_TOOL_RESULT = 'The tool call succeeded and returned no content (empty result).';

/** Shared by every step without tools (most of them); never written to. */
const NO_TOOLS: Map<string, ToolDescriptor> = new Map();

/** OpenAI function names allow [A-Za-z0-9_-]{1,64}; `server/tool` becomes `server__tool`, made unique. */
export function toolNames(tools: ToolDescriptor[]): Map<string, ToolDescriptor> {
  if (tools.length === 0) return NO_TOOLS;
  const byName = new Map<string, ToolDescriptor>();
  for (const t of tools) {
    const base =
      t.id
        .replace(/\//g, '__')
        .replace(/[^A-Za-z0-9_-]/g, '_')
        .slice(0, 60) || 'tool';
    let name = base;
    for (let i = 2; byName.has(name); i++) name = `${base.slice(0, 58)}_${i}`;
    byName.set(name, t);
  }
  return byName;
}

export async function runToolLoop(input: ToolLoopInput): Promise<string> {
  const { run, ctx, agent } = input;
  const byName = toolNames(agent ? [...input.tools, ...agent.tools] : input.tools);
  const chatTools: ChatTool[] = [...byName].map(([name, t]) => ({
    type: 'function',
    function: { name, description: t.description || t.id, parameters: t.inputSchema ?? { type: 'object' } },
  }));
  const messages: ChatMessage[] = [
    { role: 'system', content: input.system },
    { role: 'user', content: input.user },
  ];
  const max = agent?.maxIterations ?? ctx.config.engine.toolLoopMaxIterations;
  let last = '';
  for (let turn = 1; turn <= max; turn++) {
    // A team agent first waits for the agents it spawned, then reads their results and its messages.
    const told = await agent?.nextTurn(input.signal);
    if (told) messages.push({ role: 'user', content: told });
    const r = await run.model.chat({
      role: input.role,
      ...(input.model ? { model: input.model } : {}),
      messages,
      ...(chatTools.length ? { tools: chatTools } : {}),
      signal: input.signal,
    });
    input.usage.modelCalls++;
    addUsage(input.usage, r.usage);
    last = r.text;
    if (r.toolCalls.length === 0) {
      await agent?.settle(input.signal);
      return r.text;
    }
    messages.push({
      role: 'assistant',
      content: r.text || null,
      tool_calls: r.toolCalls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    for (const call of r.toolCalls) {
      const content = await callOneTool(input, byName, call);
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
    const finished = agent?.result();
    if (finished !== undefined) {
      await agent!.settle(input.signal);
      return finished;
    }
  }
  await agent?.settle(input.signal);
  return last || `The tool loop stopped after ${max} turns without a final answer.`;
}

async function callOneTool(input: ToolLoopInput, byName: Map<string, ToolDescriptor>, call: ToolCall): Promise<string> {
  const { run, ctx, stepId, signal } = input;
  const toolCallId = `${stepId}-${call.id}`;
  const tool = byName.get(call.name);
  if (!tool) return `Error: there is no tool named "${call.name}". Available: ${[...byName.keys()].join(', ')}`;
  const agent = input.agent?.owns(tool.id) ? input.agent : undefined;

  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('arguments must be a JSON object');
    args = parsed as Record<string, unknown>;
  } catch (err) {
    return `Error: the arguments for ${tool.id} are not valid JSON (${(err as Error).message}).`;
  }
  // A team tool (spawn, messages, team memory) is the engine's own: no approval, no tool budget.
  if (agent) return agent.call(tool.id, args, signal);

  emit(run, { type: 'tool.started', stepId, toolCallId, tool: tool.id, args });
  const started = ctx.now();
  const finish = (status: 'ok' | 'error' | 'denied', text: { result?: string; error?: string }) => {
    const targets = callTargets(args);
    input.toolCalls.push({ toolCallId, tool: tool.id, status, ...(targets.length ? { targets } : {}) });
    // The step's usage counts the calls that reached a tool host, as the run's meter does: a denied
    // call never ran.
    if (status !== 'denied') input.usage.toolCalls++;
    emit(run, {
      type: 'tool.finished',
      stepId,
      toolCallId,
      tool: tool.id,
      status,
      ...text,
      durationMs: ctx.now() - started,
    });
  };

  // A tool of the run's session (the project, the client's MCP servers) is served by the session's host.
  const host = run.sessionTools && input.fromSession?.has(tool.id) ? run.sessionTools : ctx.tools;
  const inspection: ToolInspection = (await host.inspect?.(tool.id, args, signal).catch(() => ({}))) ?? {};
  const guard = inspection.mustAsk
    ? { required: true, reason: inspection.mustAsk }
    : needsApproval(tool, ctx.config.approvals.policy);
  if (guard.required) {
    // One request per tool call, under one id, settled by a human or at the approval timeout: the
    // step's clock stands still meanwhile, so the step timeout never cancels it and asks again.
    const { outcome } = announcingApprovals(run, ctx, input.clock).request(
      {
        kind: 'tool',
        runId: run.id,
        stepId,
        toolCalls: [
          {
            toolCallId,
            tool: tool.id,
            args,
            annotations: tool.annotations,
            reason: guard.reason,
            inputSchema: tool.inputSchema,
            ...(inspection.preview ? { preview: inspection.preview } : {}),
          },
        ],
      },
      { timeoutMs: ctx.config.approvals.timeoutMs, signal },
    );
    const settled = await outcome;
    if (signal.aborted) throw signal.reason;
    const decision = settled.decision.kind === 'tool' ? settled.decision.decisions[toolCallId] : undefined;
    const feedback =
      settled.decision.kind === 'tool' && settled.decision.feedback ? ` Feedback: ${settled.decision.feedback}` : '';
    if (!decision || decision.type === 'deny') {
      const why =
        settled.resolvedBy === 'human'
          ? DENIED_BY_HUMAN
          : settled.resolvedBy === 'timeout'
            ? 'The tool call was not approved (timeout). It was denied by timeout: no human decided in time.'
            : `The tool call was not approved (${settled.resolvedBy}).`;
      finish('denied', { error: why + feedback });
      return `${why}${feedback} ${DENIED_TAIL}`;
    }
    if (decision.type === 'edit') args = decision.args;
  }

  const reservation = run.meter.reserveToolCall();
  try {
    const result = await ctx.span(
      'tool.call',
      { 'parley.run_id': run.id, 'parley.step_id': stepId, 'parley.tool': tool.id },
      () =>
        host.callTool(tool.id, args, {
          runId: run.id,
          stepId,
          toolCallId,
          signal,
          approvals: announcingApprovals(run, ctx, input.clock),
        }),
    );
    reservation.settle();
    input.sources.push(`tool:${tool.id}`);
    if (result.ok) {
      finish('ok', { result: result.text });
      if (input.named) addNamed(input.named, namedSourcesOfCall(tool.id, args));
      // An empty result said in words: `""` or `{"content":""}` leaves the model guessing whether anything happened.
      return result.text.trim() ? result.text : EMPTY_TOOL_RESULT;
    }
    finish('error', { error: result.error ?? result.text });
    return `Tool error from ${tool.id}: ${result.error ?? result.text}`;
  } catch (err) {
    reservation.settle();
    if (signal.aborted) throw err;
    const message = err instanceof Error ? err.message : String(err);
    finish('error', { error: message });
    return `Tool error from ${tool.id}: ${message}`;
  } finally {
    reservation.release();
  }
}

/**
 * The approval port as the run's steps and tools see it: the request is announced as
 * approval.requested the moment it is issued (sideband: before anyone awaits it), and its outcome
 * as approval.resolved when it settles. While it waits, the step's clock (when given) is paused:
 * a human's time counts against the approval timeout only. Also handed to tool hosts and peers
 * for elicitations (a tool host pauses its own call deadline too).
 */
export function announcingApprovals(
  run: RunState,
  ctx: EngineContext,
  clock?: StepClock,
): Pick<ApprovalPort, 'request'> {
  return {
    request: (input, options) => {
      // The request belongs to the run's caller: only it (or an admin) may see or answer it.
      const issued = ctx.approvals.request({ ...input, callerId: run.callerId }, options);
      clock?.pause();
      // With a run store the request is announced once committed (a kill -9 then cannot take back an
      // id a client was told); one restored after a restart was announced before it.
      const announce = () => {
        if (!issued.restored) emit(run, { type: 'approval.requested', request: issued.request });
      };
      const announced = issued.stored ? issued.stored.then(announce) : (announce(), undefined);
      const outcome = Promise.all([issued.outcome, announced]).then(([settled]) => {
        clock?.resume();
        emit(run, { type: 'approval.resolved', outcome: settled });
        return settled;
      });
      return { request: issued.request, outcome };
    },
  };
}
