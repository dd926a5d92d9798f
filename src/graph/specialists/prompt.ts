/** `prompt` specialists: the specialist's system prompt plus an LLM tool loop over its bound tools. */
import type { PlanStep } from '../graph-plan.ts';
import { memoryNote } from '../prompts.ts';
import type { EngineContext, RunState } from '../state.ts';
import type { SpecialistRecord } from '../../knowledge/store.ts';
import type { ToolDescriptor } from '../../tools/types.ts';
import type { StepClock, StepRun } from '../scheduler.ts';
import type { StepWork } from './index.ts';
import { runToolLoop } from './tool-loop.ts';

export interface SpecialistInput {
  run: RunState;
  ctx: EngineContext;
  specialist: SpecialistRecord;
  step: PlanStep;
  objective: string;
  signal: AbortSignal;
  /** The step's timeout clock, paused while the step waits on a human. */
  clock: StepClock;
  work: StepWork;
}

/** The user turn every tool-loop specialist gets: the whole request for context, then its objective. */
export function specialistUserMessage(input: SpecialistInput): string {
  return `The user's request: ${input.run.request.query}\n\nYour objective (step ${input.step.id}): ${input.objective}`;
}

export async function resolveTools(ctx: EngineContext, ids: string[]): Promise<ToolDescriptor[]> {
  const found = await Promise.all(ids.map((id) => ctx.tools.getTool(id)));
  return found.filter((t): t is ToolDescriptor => t !== undefined);
}

export async function runPromptSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  const { run, ctx, specialist } = input;
  const tools = await resolveTools(ctx, specialist.tools);
  const system = (specialist.prompt || `You are ${specialist.name}: ${specialist.description}`) + memoryNote(run.memory);
  return runSpecialistLoop(input, system, tools);
}

/** The LLM tool loop of one step, with the specialist's model role, over the given tools. */
export function runSpecialistLoop(input: SpecialistInput, system: string, tools: ToolDescriptor[]): Promise<Omit<StepRun, 'lineage'>> {
  const { run, ctx, specialist } = input;
  input.work.model = run.model.modelFor(specialist.modelRole, input.step.model);
  // .then rather than an async frame held for the whole loop.
  return runToolLoop({
    run,
    ctx,
    stepId: input.step.id,
    signal: input.signal,
    clock: input.clock,
    role: specialist.modelRole,
    ...(input.step.model ? { model: input.step.model } : {}),
    system,
    user: specialistUserMessage(input),
    tools,
    usage: input.work.usage,
    toolCalls: input.work.toolCalls,
    sources: input.work.sources,
  }).then(specialistDone);
}

const specialistDone = (output: string): Omit<StepRun, 'lineage'> => ({ ok: true, output });
