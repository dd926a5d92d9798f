/**
 * The fork form's state and the `edit` it sends (POST /api/runs/:id/fork, docs/time-travel.md): only
 * what the user changed — the query, the plan, a finished step's output, models per role and per step —
 * so an untouched form forks the checkpoint as it is.
 */
import type { PlanStep, RunCheckpoint } from '../api/types.ts';

/** A plan step as the form edits it: dependencies as a list, the step's model as text ('' = unchanged). */
export interface DraftStep {
  /** The step as planned (its other fields travel unchanged); undefined for a step added in the form. */
  base?: PlanStep;
  id: string;
  specialist: string;
  objective: string;
  dependsOn: string[];
  model: string;
}

export interface ForkDraft {
  query: string;
  steps: DraftStep[];
  /** New outputs by step id (only steps that had succeeded at the checkpoint). */
  outputs: Record<string, string>;
  /** Models by role ('' = the parent's choice). */
  models: Record<string, string>;
}

export function draftOf(checkpoint: RunCheckpoint, query: string): ForkDraft {
  return {
    query,
    steps: (checkpoint.plan?.steps ?? []).map((s) => ({
      base: s,
      id: s.id,
      specialist: s.specialist,
      objective: s.objective,
      dependsOn: [...s.dependsOn],
      model: '',
    })),
    outputs: Object.fromEntries(
      checkpoint.steps.filter((s) => s.status === 'succeeded').map((s) => [s.stepId, s.output ?? '']),
    ),
    models: {},
  };
}

/** A new step's id: s<n> with the first n not taken. */
export function freshStepId(steps: DraftStep[]): string {
  const taken = new Set(steps.map((s) => s.id));
  let n = steps.length + 1;
  while (taken.has(`s${n}`)) n++;
  return `s${n}`;
}

const planKey = (steps: { id: string; specialist: string; objective: string; dependsOn: string[] }[]) =>
  JSON.stringify(steps.map((s) => [s.id, s.specialist, s.objective, s.dependsOn]));

/** The `edit` of the fork body: what differs from the checkpoint; undefined when nothing does. */
export function editOf(
  draft: ForkDraft,
  checkpoint: RunCheckpoint,
  query: string,
): Record<string, unknown> | undefined {
  const edit: Record<string, unknown> = {};
  if (draft.query.trim() !== query.trim()) edit.query = draft.query;
  const plan = checkpoint.plan;
  if (plan && planKey(draft.steps) !== planKey(plan.steps))
    edit.plan = {
      rationale: plan.rationale,
      steps: draft.steps.map((s) => ({
        ...s.base,
        id: s.id.trim(),
        specialist: s.specialist,
        objective: s.objective,
        dependsOn: s.dependsOn,
      })),
    };
  const before = new Map(checkpoint.steps.map((s) => [s.stepId, s.output ?? '']));
  const outputs = Object.fromEntries(Object.entries(draft.outputs).filter(([id, text]) => before.get(id) !== text));
  if (Object.keys(outputs).length) edit.outputs = outputs;
  const models = Object.fromEntries(
    Object.entries(draft.models)
      .map(([role, model]) => [role, model.trim()])
      .filter(([, model]) => model),
  );
  if (Object.keys(models).length) edit.models = models;
  const stepModels = Object.fromEntries(draft.steps.filter((s) => s.model.trim()).map((s) => [s.id, s.model.trim()]));
  if (Object.keys(stepModels).length) edit.stepModels = stepModels;
  return Object.keys(edit).length ? edit : undefined;
}
