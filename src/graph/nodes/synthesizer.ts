/**
 * synthesizer: streams the final answer from the step results (answer.delta), written for the person who
 * asked: no step id, agent id or specialist name in its text. The steps it was given that succeeded go
 * out as data (run.finished `sources`, with what each read by name); with `citations: "numbered"` the
 * answer cites those named sources as [1], [2] and Parley appends the list (run.finished `references`).
 * After exhausted verification it answers from the best round and says so first. When steps failed or
 * were skipped, the answer ends with each missing part in plain words (also on run.finished as failedSteps).
 * A dynamic team whose manager already answered keeps that answer: as it stands when the verifier passed
 * with nothing to mention (dynamic/manager-answer.ts), else edited only where the verifier's notes say, by
 * edits Parley applies (answer-edits.ts), written out whole only when an edit does not apply.
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
import { managerAnswer, rootAnswer, sourcesOf } from '../dynamic/manager-answer.ts';
import { teamOf } from '../dynamic/team.ts';
import { referenceRows, referencesOf, referencesText, type References } from './answer-references.ts';
import { reviseByEdits } from './answer-edits.ts';

/** What the answer may say about how it was made, and how it names its sources. */
function forTheReader(references: References | undefined): string {
  const sources = references?.list.length
    ? `The parley:references block numbers the sources the steps read (files, web pages, remote agents, tools: "n", "kind",
"title"), and each step's "references" lists the numbers of the ones it read. Cite a source by its number in square brackets,
e.g. [1], right after the facts that come from it; cite only those numbers, and never a step. Do not write the list of
references: Parley adds it after your answer.`
    : `Do not add a list of sources at the end: Parley sends the sources with the answer.`;
  return `Write for the user: they never saw the steps. Do not mention steps, their ids, specialists, agents or how the work was
organised unless the query asks about that. ${sources}`;
}

/** The system prompt of a writer of the answer from the step results. */
function synthSystem(notes: boolean, references: References | undefined): string {
  return `You are Parley's synthesizer. Write the final answer to the query in the parley:query block from the step results in the parley:steps block
(each step's "id", "specialist", "status" and "output"${references ? ', "references"' : ''}).
${forTheReader(references)}
Do not invent facts the steps do not support.
When the work was an action (a file written, a change made, something sent), the answer says what was done and where
(the file name or the target) and summarises what it holds in a few lines: do not paste a file's or a change's whole content back.
Steps whose status is not "succeeded" failed or did not run: say in plain words which part of the request is missing because of them.${
    notes
      ? `\nThe parley:verifier_notes block holds the verifier's notes on these results: mention the caveats they raise where they matter.`
      : ''
  }`;
}

/**
 * The system prompt of an editor of an answer already written (a dynamic team's manager's): it makes the
 * changes the verifier's notes call for (and adds citations when asked), and keeps the rest as it is.
 */
function editorSystem(notes: boolean, references: References | undefined): string {
  const changes = [
    notes ? 'the changes the notes in the parley:verifier_notes block call for, checked against the step results' : '',
    references?.list.length ? 'the citations described below' : '',
  ].filter(Boolean);
  return `You are Parley's editor. The parley:answer block holds the answer to the query in the parley:query block, already written
from the step results in the parley:steps block${notes ? "; the parley:verifier_notes block holds a reviewer's notes on it" : ''}.
Return the answer with only ${changes.join(', and ')}: keep its structure, wording, order and length everywhere else.
Do not rewrite it, and do not start with a preface or end with a summary of your changes.
${forTheReader(references)}`;
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

/** One line per missing part, in plain words: what it was to do, and why it is not done (no ids). */
function missingParts(failed: FailedStep[], plan: GraphPlan): string {
  const objectives = new Map(plan.steps.map((s) => [s.id, s.objective]));
  const lines = failed.map((f) => {
    // The objective as the planner wrote it, without the {{id.result}} it quotes (a template is no plain word).
    const objective = (objectives.get(f.stepId) ?? '').replace(/\{\{[^{}]*\}\}/g, '').replace(/[\s:;,-]+$/, '');
    const what = clip(objective || f.specialist, 200);
    const why =
      f.status === 'skipped'
        ? 'not done, because work it depended on failed'
        : f.status === 'cancelled'
          ? 'not done: it was cancelled'
          : `failed (${clip(f.error, 300)})`;
    return `- ${what}: ${why}`;
  });
  return `\n\nNot done (this answer is partial):\n${lines.join('\n')}`;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

export async function synthesizer(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'synthesizer'>>> {
  const team = teamOf(run);
  const numbered = run.request.citations === 'numbered';
  const answered =
    team &&
    !numbered &&
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
  const references = numbered ? referencesOf(used) : undefined;
  // A team's manager already wrote the answer: it stays, edited only where the notes say (or not at all).
  const written = team ? rootAnswer({ ...source, finishedWith: (id) => team.resultOf(id) }) : undefined;
  const sources = sourcesOf(used);
  const end = () => {
    if (failed.length) say(missingParts(failed, source.plan));
    if (references?.list.length) say(referencesText(references.list));
    return {
      next: 'end' as const,
      update: { sources, answer: pieces.join(''), ...(references?.list.length ? { references: references.list } : {}) },
    };
  };
  if (written !== undefined && !notes && !references?.list.length) {
    say(written);
    return end();
  }

  // An editor reads the answer once: the step whose output it is (the root manager's) is not repeated as evidence.
  const evidence = written !== undefined ? outcomes.filter((o) => o.output !== written) : outcomes;
  // Revised for the notes by edits Parley applies, not written out again; whole only when an edit does not apply.
  if (written !== undefined && notes && !references?.list.length) {
    const revised = await reviseByEdits(run, ctx, {
      written,
      notes,
      outcomes: evidence,
      readerRules: forTheReader(undefined),
    });
    if (revised !== undefined) {
      say(revised);
      return end();
    }
  }

  const system =
    (written !== undefined ? editorSystem(!!notes, references) : synthSystem(!!notes, references)) + todayNoteOf(ctx);
  const rest = [
    system,
    memoryNote(run.memory),
    run.request.query,
    notes ?? '',
    written ?? '',
    ...run.history.messages.map((m) => m.content),
  ];
  const fitted = await fitStepOutputs(run, ctx, { role: 'synthesizer' }, rest, evidence);
  const blocks = [
    block('query', run.request.query),
    written !== undefined ? block('answer', written) : '',
    stepsBlock(evidence, fitted, false, references?.byStep),
    references?.list.length ? block('references', JSON.stringify(referenceRows(references.list))) : '',
    notes ? block('verifier_notes', notes) : '',
  ];
  const messages: ChatMessage[] = [
    ...withHistoryThenMemory(system, run.history, run.memory),
    { role: 'user', content: userContent(run, ctx, 'synthesizer', blocks.filter(Boolean).join('\n\n')) },
  ];
  for await (const chunk of run.model.stream({ role: 'synthesizer', messages, signal: run.abort.signal })) {
    if (chunk.type === 'delta') say(chunk.text);
  }
  return end();
}
