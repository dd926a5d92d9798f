/**
 * What a fork asks for, checked before anything starts (docs/time-travel.md): the checkpoint, and the
 * edits — another query, another plan (validated like any plan), new outputs for finished steps,
 * other models per role or per step. A bad one is a clear message and no run.
 */
import { z } from 'zod';
import { GraphPlanSchema, validatePlan, type GraphPlan } from '../planning/graph-plan.ts';
import { ModelNameSchema, resolveModelChoice, RoleModelsSchema } from '../run/request-models.ts';
import type { RunRequest } from '../run/request.ts';
import type { StepOutcome } from '../planning/scheduler.ts';
import type { KeptStep } from '../run/state.ts';
import type { CheckpointState } from './checkpoints.ts';
import type { ResumeFrom } from './seed.ts';

const MAX_OUTPUT_CHARS = 200_000;

export const ForkEditSchema = z.strictObject({
  query: z.string().trim().min(1, 'the query must not be empty').max(20_000).optional(),
  plan: z.unknown().optional(),
  /** New outputs of steps finished at the checkpoint, by step id. */
  outputs: z.record(z.string().min(1), z.string().max(MAX_OUTPUT_CHARS)).optional(),
  model: ModelNameSchema.optional(),
  models: RoleModelsSchema.optional(),
  /** Models of plan steps, by step id (PlanStep.model). */
  stepModels: z.record(z.string().min(1), ModelNameSchema).optional(),
});
export type ForkEdit = z.infer<typeof ForkEditSchema>;

export const ForkBodySchema = z.strictObject({
  checkpoint: z.string().min(1, 'name the checkpoint to fork from (GET /api/runs/:id/checkpoints lists them)').max(64),
  edit: ForkEditSchema.optional(),
});
export type ForkBody = z.infer<typeof ForkBodySchema>;

export type ForkPlan = { ok: true; request: RunRequest; resumeFrom?: ResumeFrom } | { ok: false; message: string };

/** Zod's first issue as one sentence naming the field. */
export function issueMessage(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0]!;
  const field = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
  return `${field}: ${issue.message}${keys}`;
}

/** The route a checkpoint before any plan had decided, as the mode that takes it without a routing call. */
const MODE_OF_ROUTE: Record<string, RunRequest['mode']> = {
  direct: 'direct',
  council: 'council',
  dynamic: 'dynamic',
  hybrid: 'hybrid',
};

/** The parent's request as a new run (a fork, a replay) repeats it: what was asked and how, on `models`. */
export function repeatedRequest(parent: RunRequest, query: string, models: RunRequest['models']): RunRequest {
  return {
    query,
    ...(parent.parts ? { parts: parent.parts } : {}),
    ...(parent.messages ? { messages: parent.messages } : {}),
    ...(parent.mode ? { mode: parent.mode } : {}),
    ...(models ? { models } : {}),
    ...(parent.reasoning !== undefined ? { reasoning: parent.reasoning } : {}),
    ...(parent.budget ? { budget: parent.budget } : {}),
    protocol: parent.protocol,
  };
}

/**
 * The new run's request and starting state. `parent` is the forked run's request; `known` the
 * specialists a plan may use. The fork gets its own id and thread.
 */
export function planFork(
  parentId: string,
  parent: RunRequest,
  state: CheckpointState,
  edit: ForkEdit,
  known: ReadonlySet<string>,
): ForkPlan {
  const models = resolveModelChoice({ model: edit.model, models: { ...parent.models, ...edit.models } });
  const request: RunRequest = {
    ...repeatedRequest(parent, edit.query ?? parent.query, models),
    forkedFrom: { runId: parentId, checkpoint: state.id },
  };

  let plan: GraphPlan | undefined = state.plan;
  if (edit.plan !== undefined) {
    const parsed = GraphPlanSchema.safeParse(edit.plan);
    if (!parsed.success) return { ok: false, message: `invalid plan: ${issueMessage(parsed.error, 'edit.plan')}` };
    const errors = validatePlan(parsed.data, known);
    if (errors.length) return { ok: false, message: `invalid plan: ${errors.join('; ')}` };
    plan = parsed.data;
  }

  const finished = new Map(state.steps.map((s) => [s.stepId, s]));
  for (const id of Object.keys(edit.outputs ?? {})) {
    if (finished.get(id)?.status !== 'succeeded')
      return { ok: false, message: `edit.outputs: step "${id}" had not succeeded at checkpoint ${state.id}` };
  }
  if (edit.stepModels) {
    if (!plan) return { ok: false, message: `edit.stepModels: checkpoint ${state.id} comes before the run had a plan` };
    for (const id of Object.keys(edit.stepModels)) {
      if (!plan.steps.some((s) => s.id === id))
        return { ok: false, message: `edit.stepModels: the plan has no step "${id}"` };
    }
    plan = {
      ...plan,
      steps: plan.steps.map((s) => (edit.stepModels![s.id] ? { ...s, model: edit.stepModels![s.id] } : s)),
    };
  }

  // Before any plan: the route the checkpoint had decided is taken as the mode (no second routing call).
  if (!plan) {
    const mode = state.route ? (MODE_OF_ROUTE[state.route] ?? 'orchestrate') : parent.mode;
    return { ok: true, request: { ...request, ...(mode ? { mode } : {}) } };
  }

  // A dynamic team's spawned steps live in its manager's loop, not in the plan a fork resumes: carrying
  // them is not built, and running them again would break "a finished step never runs again".
  const spawned = state.steps.filter((s) => state.planned.get(s.stepId)?.parentStepId !== undefined);
  if (spawned.length)
    return {
      ok: false,
      message:
        `checkpoint ${state.id} comes after steps a dynamic team spawned had finished ` +
        `(${spawned.map((s) => s.stepId).join(', ')}), and a fork cannot carry spawned steps: fork from a ` +
        `checkpoint before the first of them finished, or replay the run (docs/time-travel.md)`,
    };
  const kept: KeptStep[] = [];
  for (const s of state.steps) {
    const step = state.planned.get(s.stepId);
    if (s.status !== 'succeeded' || !step || state.flagged.has(s.stepId)) continue;
    const outcome: StepOutcome = {
      stepId: s.stepId,
      specialist: s.specialist,
      status: 'succeeded',
      objective: step.objective,
      output: edit.outputs?.[s.stepId] ?? s.output ?? '',
    };
    kept.push({ step, outcome });
  }
  // Every step carried as it was verified, and the verification passed: the verifier is not asked again.
  const verified = state.verification;
  const unedited = edit.query === undefined && edit.plan === undefined && edit.outputs === undefined;
  const carriesVerification =
    unedited && verified?.next === 'synthesize' && plan.steps.every((p) => kept.some((k) => k.step.id === p.id));
  // A plan is run whatever the parent's mode was (a council or direct run has none unless edited in).
  const planMode = request.mode === 'direct' || request.mode === 'council' ? 'orchestrate' : request.mode;
  return {
    ok: true,
    request: { ...request, ...(planMode ? { mode: planMode } : {}) },
    resumeFrom: {
      plan,
      round: state.planRound ?? 1,
      kept,
      reason: `forked from run ${parentId} at checkpoint ${state.id} (${state.label}); ${kept.length} finished step(s) carried, not run again${carriesVerification ? `; verification round ${verified.round} (score ${verified.score}) carried, not asked again` : ''}`,
      ...(carriesVerification
        ? {
            verification: {
              fromRunId: parentId,
              round: verified.round,
              score: verified.score,
              feedback: verified.feedback,
            },
          }
        : {}),
    },
  };
}
