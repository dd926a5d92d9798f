/**
 * synthesizer: streams the final answer from the step results (answer.delta), citing step ids in
 * the text; the steps it was given that succeeded go out as data (run.finished `sources`). After
 * exhausted verification it answers from the best round and says so first.
 * When steps failed or were skipped, the model is shown them too, and the answer ends with each
 * missing part and its error (also on run.finished as failedSteps): a partial answer says so itself.
 * A dynamic team whose manager already answered, every agent succeeded and the verifier passed with
 * nothing to mention is answered with the manager's result, without a model call (dynamic/manager-answer.ts).
 */
import { block, stepsBlock } from '../prompting/prompts.ts';
import { memoryNote, withHistoryThenMemory } from '../prompting/memory-note.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { emit, type EngineContext, type NodeRun } from '../run/state.ts';
import type { FailedStep } from '../run/events.ts';
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { StepOutcome } from '../planning/scheduler.ts';
import type { ChatMessage } from '../../llm/types.ts';
import type { Decision, Next } from '../run/edges.ts';
import { userContent } from '../prompting/user-content.ts';
import { fitStepOutputs } from '../prompting/context-budget.ts';
import { managerAnswer } from '../dynamic/manager-answer.ts';
import { teamOf } from '../dynamic/team.ts';

/** The system prompt, citing with the real step ids of this answer (never a made-up example id). */
function synthSystem(stepIds: string[], notes: boolean): string {
  const ids = stepIds.map((id) => `[${id}]`).join(', ');
  return `You are Parley's synthesizer. Write the final answer to the query in the parley:query block from the step results in the parley:steps block
(each step's "id", "specialist", "status" and "output"). Write for the user: they never saw the steps.
Cite the steps you used by id in square brackets where their facts appear (the ids here: ${ids}). Do not add a list of
sources at the end: Parley sends the sources with the answer. Do not invent facts the steps do not support.
When the work was an action (a file written, a change made, something sent), the answer says what was done and where
(the path or the target) and summarises what it holds in a few lines: do not paste a file's or a change's whole content back.
Steps whose status is not "succeeded" failed or did not run: say briefly what is missing because of them; never cite them.${
    notes
      ? `\nThe parley:verifier_notes block holds the verifier's notes on these results: mention the caveats they raise where they matter.`
      : ''
  }`;
}

/** The plan's steps that did not succeed, in plan order; a step with no outcome never ran. */
export function failedStepsOf(plan: GraphPlan, results: ReadonlyMap<string, StepOutcome>): FailedStep[] {
  return plan.steps.flatMap((s): FailedStep[] => {
    const o = results.get(s.id);
    if (o?.status === 'succeeded') return [];
    return [
      {
        stepId: s.id,
        specialist: s.specialist,
        status: o?.status ?? 'skipped',
        error: o?.error ?? (o ? o.status : 'not run'),
      },
    ];
  });
}

/** One line per missing part; no [id] brackets, which cite a step the answer used. */
function missingParts(failed: FailedStep[]): string {
  const lines = failed.map((f) => {
    const why = f.status === 'skipped' ? f.error.replace(/^skipped: /, '') : f.error;
    return `- ${f.stepId} (${f.specialist}) ${f.status}: ${why}`;
  });
  return `\n\nNot done (this answer is partial):\n${lines.join('\n')}`;
}

export async function synthesizer(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'synthesizer'>>> {
  const team = teamOf(run);
  const answered =
    team &&
    managerAnswer({
      plan: run.plan!,
      results: run.results,
      ...(run.verification ? { verification: run.verification } : {}),
      ...(run.exhausted ? { exhausted: run.exhausted } : {}),
      finishedWith: (id) => team.resultOf(id),
    });
  if (answered) {
    // Sent as the synthesizer's answer is, so every adapter shows it unchanged.
    emit(run, { type: 'answer.delta', text: answered.answer });
    return { next: 'end', update: answered };
  }
  const source = run.exhausted && run.best ? run.best : { plan: run.plan!, results: run.results };
  const outcomes = source.plan.steps.map((s) => source.results.get(s.id)).filter((o) => o !== undefined);
  const used = outcomes.filter((o) => o.status === 'succeeded');
  const failed = failedStepsOf(source.plan, source.results);
  // Written now, not returned: the run's end lists the missing steps even when the synthesis itself fails.
  if (failed.length) run.failedSteps = failed;
  if (used.length === 0) {
    const why = outcomes.map((o) => `${o.stepId}: ${o.error ?? o.status}`).join('; ');
    return {
      next: 'end',
      update: { outcome: { status: 'failed', error: `no step succeeded (${why || 'no steps ran'})` } },
    };
  }

  // Pieces joined once at the end: `+=` per delta would keep the answer as a rope of hundreds of
  // cons-string nodes for as long as the run is retained.
  const pieces: string[] = [];
  const say = (text: string) => {
    if (!text) return;
    pieces.push(text);
    emit(run, { type: 'answer.delta', text });
  };
  if (run.exhausted) say(`Note: ${run.exhausted}. This is the best result.\n\n`);

  // The verifier's notes on the round the answer is written from (a passing round's caveats included).
  const notes = (run.exhausted && run.best ? run.best.verification : run.verification)?.feedback.trim();
  const system =
    synthSystem(
      used.map((o) => o.stepId),
      !!notes,
    ) + todayNoteOf(ctx);
  const rest = [
    system,
    memoryNote(run.memory),
    run.request.query,
    notes ?? '',
    ...run.history.messages.map((m) => m.content),
  ];
  const fitted = await fitStepOutputs(run, ctx, { role: 'synthesizer' }, rest, outcomes);
  const messages: ChatMessage[] = [
    ...withHistoryThenMemory(system, run.history, run.memory),
    {
      role: 'user',
      content: userContent(
        run,
        ctx,
        'synthesizer',
        [block('query', run.request.query), stepsBlock(outcomes, fitted), notes ? block('verifier_notes', notes) : '']
          .filter(Boolean)
          .join('\n\n'),
      ),
    },
  ];
  for await (const chunk of run.model.stream({ role: 'synthesizer', messages, signal: run.abort.signal })) {
    if (chunk.type === 'delta') say(chunk.text);
  }
  // The sources travel as data (run.finished `sources`), not as a line of text after the answer.
  const sources = used.map((o) => ({ stepId: o.stepId, specialist: o.specialist }));
  if (failed.length) say(missingParts(failed));
  return { next: 'end', update: { sources, answer: pieces.join('') } };
}
