/** `prompt` specialists: the specialist's system prompt plus an LLM tool loop over its bound tools. */
import { memoryNote } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import type { EngineContext } from '../run/state.ts';
import type { SpecialistRecord } from '../../knowledge/store.ts';
import type { ToolDescriptor } from '../../tools/types.ts';
import type { StepRun } from '../planning/scheduler.ts';
import type { StepCall, StepWork } from './step-call.ts';
import { runToolLoop } from './tool-loop.ts';
import { stepNote } from './step-note.ts';
import { historyNote } from '../threads/thread-history.ts';
import { userContent } from '../prompting/user-content.ts';
import { withSessionTools } from './session-bindings.ts';
import { toolServersNote, toolsForStep, withListAllowed } from '../planning/step-tools.ts';
import type { AgentHooks } from '../dynamic/agent-tools.ts';

/** A step and the specialist that runs it, with the record of its work (usage, tool calls, sources). */
export interface SpecialistInput extends StepCall {
  specialist: SpecialistRecord;
  work: StepWork;
  /** Set when the step is an agent of a dynamic team: its team tools and hooks. */
  agent?: AgentHooks;
}

/** The user turn every tool-loop specialist gets: the whole request for context, then its objective. */
export function specialistUserMessage(input: SpecialistInput): string {
  return `The user's request: ${input.run.request.query}\n\nYour objective (step ${input.step.id}): ${input.objective}`;
}

export async function resolveTools(ctx: EngineContext, ids: string[]): Promise<ToolDescriptor[]> {
  const found = await Promise.all(ids.map((id) => ctx.tools.getTool(id)));
  return found.filter((t): t is ToolDescriptor => t !== undefined);
}

/** The tools the run's session adds (the project, the client's MCP servers); none for a run without a session. */
function sessionToolsOf(input: SpecialistInput): Promise<ToolDescriptor[]> {
  return input.run.sessionTools?.listTools() ?? Promise.resolve([]);
}

export async function runPromptSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  const { run, ctx, specialist } = input;
  const offered = withSessionTools(
    specialist.tools,
    await resolveTools(ctx, withListAllowed(specialist.tools)),
    await sessionToolsOf(input),
  );
  // Read-only steps get read-only tools (planning/step-tools.ts); the note names the servers the kept tools come from.
  const tools = toolsForStep(input.step, offered.tools);
  const system =
    (specialist.prompt || `You are ${specialist.name}: ${specialist.description}`) +
    toolServersNote(
      run,
      tools.filter((t) => !offered.fromSession.has(t.id)),
    ) +
    missingToolsNote(
      specialist.tools,
      offered.tools.map((t) => t.id),
    );
  // The thread first, then similar runs: execution memory follows the conversation's history.
  return runSpecialistLoop(input, system, tools, offered.fromSession, memoryNote(run.memory));
}

/**
 * Tools a specialist's instructions count on that this run does not have (their server is not configured
 * or not reachable): said, so its prompt never promises what it cannot do.
 */
export function missingToolsNote(declared: string[], offered: string[]): string {
  const missing = declared.filter((id) => !offered.includes(id));
  if (!missing.length) return '';
  const none = offered.length === 0;
  return `\n\n${none ? 'None of the tools your instructions mention are' : `These tools your instructions mention are not`} available in this run: ${missing.join(', ')}.${
    none ? ' You have no tools: work from the request and what you know,' : ' Do without them,'
  } never claim to have looked something up that you could not, and say what you could not check.`;
}

/** The LLM tool loop of one step, with the specialist's model role, over the given tools. */
export async function runSpecialistLoop(
  input: SpecialistInput,
  system: string,
  tools: ToolDescriptor[],
  fromSession?: Set<string>,
  /** Context that follows the conversation's history in the system message (execution memory). */
  afterHistory = '',
): Promise<Omit<StepRun, 'lineage'>> {
  const { run, ctx, specialist } = input;
  input.work.model = run.model.modelFor(specialist.modelRole, input.step.model);
  const output = await runToolLoop({
    run,
    ctx,
    stepId: input.step.id,
    signal: input.signal,
    clock: input.clock,
    role: specialist.modelRole,
    ...(input.step.model ? { model: input.step.model } : {}),
    system:
      system +
      stepNote(!input.agent, tools.length > 0 || !!input.agent?.tools.length) +
      (input.agent?.note ?? '') +
      historyNote(run.history) +
      afterHistory +
      todayNoteOf(ctx),
    user: userContent(run, ctx, specialist.modelRole, specialistUserMessage(input)),
    tools,
    ...(fromSession?.size ? { fromSession } : {}),
    usage: input.work.usage,
    toolCalls: input.work.toolCalls,
    sources: input.work.sources,
    named: input.work.named,
    ...(input.agent ? { agent: input.agent } : {}),
  });
  return { ok: true, output };
}
