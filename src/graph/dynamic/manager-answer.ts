/**
 * When a team's manager has already written the answer (docs/engine.md "Dynamic teams", "The manager's
 * answer"): a dynamic run starts with one manager step, and every other step grows from it, so that
 * manager's finish(result) answers the whole request. When its team all succeeded and the verifier
 * passed with nothing for the answer to mention, that result is the answer as it stands: the
 * synthesizer would only write it again, one more call with every agent's output as its input.
 */
import type { AnswerSource } from '../run/events.ts';
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { StepOutcome } from '../run/step-outcome.ts';
import { PASS_SCORE, type Verification } from '../run/state.ts';

/**
 * The plan's root manager: its one planned step (every other step was spawned), when that step is a
 * manager. A dynamic run's `manager`; in a hybrid plan only when the planner planned nothing else.
 */
export function rootManagerOf(plan: GraphPlan): string | undefined {
  const planned = plan.steps.filter((s) => s.parentStepId === undefined);
  return planned.length === 1 && planned[0]!.manager === true ? planned[0]!.id : undefined;
}

/** What the decision reads: the round the answer would be written from, and the root's finish result. */
export interface ManagerAnswerInput {
  plan: GraphPlan;
  results: ReadonlyMap<string, StepOutcome>;
  verification?: Verification;
  /** Why verification was given up (RunState.exhausted): then the answer says so, and is written from the best round. */
  exhausted?: string;
  /** The result the step passed to finish, if it called it (Team.resultOf). */
  finishedWith: (stepId: string) => string | undefined;
}

/**
 * The root manager's finished answer in the round the answer is written from: its finish result (not a
 * text it ended with when its turns ran out), when it succeeded. The synthesizer keeps it as the answer:
 * as it stands (managerAnswer), or edited only where the verifier's notes say.
 */
export function rootAnswer(input: Pick<ManagerAnswerInput, 'plan' | 'results' | 'finishedWith'>): string | undefined {
  const root = rootManagerOf(input.plan);
  const outcome = root ? input.results.get(root) : undefined;
  if (!root || outcome?.status !== 'succeeded') return undefined;
  const answer = input.finishedWith(root);
  return answer?.trim() && outcome.output === answer ? answer : undefined;
}

/** The succeeded steps of the round, as run.finished `sources` (with what each read, by name). */
export function sourcesOf(outcomes: (StepOutcome | undefined)[]): AnswerSource[] {
  return outcomes
    .filter((o): o is StepOutcome => o?.status === 'succeeded')
    .map((o) => ({
      stepId: o.stepId,
      specialist: o.specialist,
      ...(o.lineage?.named?.length ? { named: o.lineage.named } : {}),
    }));
}

/** The manager's result as the run's answer, with the steps it was built from; undefined when it needs a writer. */
export function managerAnswer(input: ManagerAnswerInput): { answer: string; sources: AnswerSource[] } | undefined {
  const { plan, results, verification } = input;
  if (input.exhausted || !verification || verification.score < PASS_SCORE) return undefined;
  // The verifier's feedback on a pass holds only what the answer must mention: a note needs an editor.
  if (verification.feedback.trim()) return undefined;
  const outcomes = plan.steps.map((s) => results.get(s.id));
  if (!outcomes.every((o) => o?.status === 'succeeded')) return undefined;
  const answer = rootAnswer(input);
  return answer === undefined ? undefined : { answer, sources: sourcesOf(outcomes) };
}
