/**
 * The council: five advisors with distinct thinking styles answer in parallel; three reviewers assess
 * and rank them blind, each under its own labels A–E (council-labels.ts); a chairman compares them,
 * decides (a typed CouncilVerdict, stored as a Decision and carried by the events) and writes the
 * advice the person reads. Used by the council node and as a plan step.
 */
import { randomUUID } from 'node:crypto';
import type { CouncilVerdict, UsageTotals } from '../run/events.ts';
import { block } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { CouncilReviewSchema, CouncilVerdictSchema } from '../prompting/schemas.ts';
import {
  CHAIRMAN_ROTATION,
  candidateBlocks,
  labelling,
  reviewBlock,
  resolveReview,
  reviewerRotation,
} from './council-labels.ts';
import { emit, type EngineContext, type RunState } from '../run/state.ts';
import { addUsage } from '../spending/usage.ts';
import { earlierDecision, earlierDecisionBlock } from '../learning/earlier-decision.ts';
import type { ModelUsage } from '../../llm/types.ts';

export const ADVISORS = [
  {
    id: 'contrarian',
    style:
      'You are the Contrarian. Look for what is wrong with the answer most people would give to this question, the risks, and the case against it.',
  },
  {
    id: 'first-principles',
    style:
      'You are the First-Principles thinker. Strip the question to its fundamentals and rebuild the answer from them.',
  },
  {
    id: 'expansionist',
    style:
      'You are the Expansionist. Look for the bigger opportunity and the upside, and for options beyond the ones the question names.',
  },
  {
    id: 'outsider',
    style:
      'You are the Outsider. Answer as a sharp generalist with no stake in the status quo: question what insiders take for granted, in plain words, and still give usable advice.',
  },
  {
    id: 'executor',
    style:
      'You are the Executor. Focus on what can actually be done next: the first steps, the roles or skills they need, and what they cost, stating what you assume about the team when the question does not say.',
  },
] as const;

const ADVISOR_TASK = `You are one of five advisors on a council, each given a different angle (contrarian, first principles,
expansionist, outsider, executor); take yours, and keep your recommendation honest. Three reviewers then rank the five answers
and a chairman turns them into the advice the person reads. Answer the question in the parley:query block
in about 150 to 350 words: your recommendation, your reasons, and what would change your mind. Where the question leaves out facts you need, say what you assume.`;

/** Said only when the caller's earlier decision on a close question is given (learning/earlier-decision.ts). */
const EARLIER_NOTE = ` The parley:earlier_decision block is the caller's decision on a similar earlier question: build on it or say why this differs.`;

const REVIEWERS = 3;

/** Explicit criteria, so reviewers rank on substance rather than on length or position; every field explained. */
const REVIEWER_SYSTEM = (
  n: number,
) => `You are council reviewer ${n} of ${REVIEWERS}. Advisors answered the question in the parley:query block; each answer is
in its own parley:candidate block, under a label A to E. The labels and their order were assigned to you at random: they say
nothing about the answers, and the other reviewers see the same answers under other labels in another order. Each advisor
wrote from an assigned angle (the contrarian, first principles, the expansionist, an outsider, the executor): judge how
useful each answer is to the person who asked, not how closely it sticks to an angle or to the majority. Judge them on
these criteria, most important first:
1. Correct: no false statements or unsound reasoning.
2. Answers the actual question and its constraints, not a neighbouring one.
3. Weighs the real trade-offs and risks.
4. Concrete and actionable: says what to do, and when it would be wrong.
Length is not a merit: a short answer that meets the criteria beats a long one that does not.
Answer with, in this order:
- "assessments": one item per answer, in the order shown, each with "label" (the bare letter, e.g. "A") and "critique"
  (a sentence or two: what the answer gets right and what it misses, on the criteria). Judge each answer on its own
  and name no other label in its critique: your labels mean nothing outside this request.
- "ranking": then, from your assessments, every label (the bare letter) exactly once, best first: all five, no ties,
  no label left out or repeated.`;

/** Every verdict field explained; the fields are data, the person reads only "answer". */
const CHAIRMAN_SYSTEM = `You are the council chairman. Five advisors answered the question in the parley:query block: each answer is in
its own parley:candidate block, under a label A to E. Three reviewers assessed and ranked them: each parley:review block
is one reviewer's ranking (labels, best first) and its critique of each answer, under the same labels as the candidate
blocks. Each advisor wrote from an assigned angle (the contrarian, first principles, the expansionist, an
outsider, the executor), so a difference of emphasis between them is not by itself a disagreement. The reviewers are the
same model as the advisors: their agreement is not independent evidence.
Compare first, then decide, then write the answer. Fields, in this order:
- "comparison": the answers compared before you decide: where they agree, where they really differ (facts, assumptions,
  the option each favours), and whose reasoning holds up and why. Your working: labels may appear here, and only here.
- "recommendation": what to do, in a few sentences, with the main reason. When the question asks to choose between
  options, say here how they differ in what matters for the choice.
- "keyInsights": the most useful points made, one per item.
- "blindSpots": what the advisors missed or assumed, and risks none of them weighed; [] if none.
- "consensus": what the advisors agree on.
- "dissent": where they disagree and why it matters; "" (empty) when they agree.
- "nextStep": the first concrete action.
- "confidence": 0..1, how sure you are that the recommendation is right given what is known: lower when the advisors split
  on substance or when facts the answer depends on are missing from the question.
- "confidenceReason": one sentence on why the confidence is that high and not higher (the fact it hinges on, the split).
These fields are the council's record, kept as data: the answer does not show them, though a client may show the
recommendation and your confidence reason beside the run's progress. Outside "comparison" never
mention the labels, reviewer numbers or rankings ("answer C", "reviewer 2", "ranked first"): state the ideas themselves.
Last, the one field the person reads:
- "answer": your advice, written for them, in the language of their question. Give the
  recommendation and why; the options weighed and when each would be the better choice; the risks; the next step; what
  would change the decision. Write it as advice to the person, in plain prose (short paragraphs, a short list where it
  helps), not as a report on the council: no "the advisors", "the council", "consensus" or "dissent", no labels, reviewer
  numbers or rankings, no section headed Consensus, Dissent, Blind spots or Confidence. If you say how sure you are, say
  it in words with its reason (e.g. "this holds unless your traffic is mostly writes"), never as a number. Give one figure
  per estimate, the same one your recommendation uses (a range counts as one figure). Answer in the form the question asks
  for: a question that asks for a short answer (one line, a name, a number, "just yes or no") gets that answer first and a
  sentence or two of reason, not all of the parts above; a yes-or-no question that needs weighing ("Should we …?") gets
  the yes or no in the first sentence, then the advice.`;

export interface CouncilResult {
  verdict: CouncilVerdict;
  /** The advice the person reads (the run's answer in council mode, the step output as a plan step). */
  text: string;
  usage: UsageTotals;
  decisionId: string;
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export async function runCouncil(
  run: RunState,
  ctx: EngineContext,
  question: string,
  signal: AbortSignal,
  usage: UsageTotals,
): Promise<CouncilResult> {
  const tally = (u: ModelUsage) => {
    usage.modelCalls++;
    addUsage(usage, u);
  };
  const earlier = await earlierDecision(run, ctx, question);
  // The caller's earlier verdict on a close question (learning/earlier-decision.ts) is context for advisors and chairman.
  const context = earlier ? `\n\n${earlierDecisionBlock(earlier)}` : '';
  const query = block('query', question);
  // One date for the whole council: advisors, reviewers and the chairman reason about the same day.
  const today = todayNoteOf(ctx);

  emit(run, {
    type: 'council.stage',
    stage: 'advisors',
    detail: `${ADVISORS.length} advisors are answering in parallel`,
  });
  const models =
    ctx.councilAdvisorModels?.length && !run.request.models?.council_advisor ? ctx.councilAdvisorModels : undefined;
  const answers = await Promise.all(
    ADVISORS.map(async (advisor, i) => {
      const r = await run.model.chat({
        role: 'council_advisor',
        ...(models ? { model: models[i % models.length] } : {}),
        messages: [
          { role: 'system', content: `${advisor.style} ${ADVISOR_TASK}${earlier ? EARLIER_NOTE : ''}${today}` },
          { role: 'user', content: query + context },
        ],
        signal,
      });
      tally(r.usage);
      return { advisor: advisor.id, text: r.text };
    }),
  );
  // One random order of the answers; each reader gets its own rotation of it, labelled A–E (council-labels.ts).
  const order = shuffled(answers.map((a) => a.advisor));
  const reviewerLabels = Array.from({ length: REVIEWERS }, (_, i) => labelling(order, reviewerRotation(i)));
  const chairmanLabels = labelling(order, CHAIRMAN_ROTATION);

  emit(run, {
    type: 'council.stage',
    stage: 'reviews',
    detail: `${REVIEWERS} reviewers are ranking the answers blind, each under its own labels and in its own order`,
    labels: reviewerLabels,
  });
  const reviews = await Promise.all(
    reviewerLabels.map(async (labels, i) => {
      const r = await run.model.structured({
        role: 'council_reviewer',
        schemaName: 'council_review',
        schema: CouncilReviewSchema,
        messages: [
          { role: 'system', content: REVIEWER_SYSTEM(i + 1) + today },
          { role: 'user', content: `${query}\n\n${candidateBlocks(labels, answers)}` },
        ],
        signal,
      });
      tally(r.usage);
      return resolveReview(i + 1, r.value, labels);
    }),
  );

  const reviewBlocks = reviews.map((r) => reviewBlock(r, chairmanLabels)).join('\n\n');
  const chair = await run.model.structured({
    role: 'council_chairman',
    schemaName: 'council_verdict',
    schema: CouncilVerdictSchema,
    messages: [
      { role: 'system', content: CHAIRMAN_SYSTEM + (earlier ? `\n${EARLIER_NOTE.trim()}` : '') + today },
      {
        role: 'user',
        content: `${query}${context}\n\n${candidateBlocks(chairmanLabels, answers)}\n\n${reviewBlocks}`,
      },
    ],
    signal,
  });
  tally(chair.usage);
  const verdict: CouncilVerdict = {
    ...chair.value,
    answer: chair.value.answer.trim() || adviceOf(chair.value),
    rankings: reviews,
  };
  emit(run, {
    type: 'council.stage',
    stage: 'verdict',
    // Progress a person may see (an ACP thought, the CLI): how sure in words, with the reason; the number is in the verdict.
    detail: `the chairman is ${confidenceInWords(verdict.confidence)}: ${verdict.confidenceReason}`,
    labels: [chairmanLabels],
    verdict,
  });

  const decisionId = randomUUID();
  try {
    await ctx.store.recordDecision({
      id: decisionId,
      runId: run.id,
      callerId: run.callerId,
      question,
      verdict,
      decidedAt: new Date(ctx.now()).toISOString(),
    });
  } catch (err) {
    ctx.logger.warn('recording the council decision failed', { runId: run.id, error: (err as Error).message });
  }
  return { verdict, text: verdict.answer!, usage, decisionId };
}

/** How sure, in words (never a bare number to the person). */
export function confidenceInWords(confidence: number): string {
  if (confidence >= 0.8) return 'fairly sure';
  if (confidence >= 0.6) return 'reasonably sure';
  if (confidence >= 0.4) return 'not very sure';
  return 'unsure';
}

/** Advice from the decision fields, for a chairman that left "answer" empty: no section names, no number. */
export function adviceOf(v: Omit<CouncilVerdict, 'answer' | 'rankings'>): string {
  const risks = v.blindSpots.length ? [`Watch for:\n${v.blindSpots.map((b) => `- ${b}`).join('\n')}`] : [];
  const sure = `I am ${confidenceInWords(v.confidence)} of this${v.confidenceReason ? `: ${v.confidenceReason}` : '.'}`;
  return [v.recommendation, ...risks, `Next step: ${v.nextStep}`, sure].join('\n\n');
}

/** The answer as the council node streams it: one delta per paragraph, adding up to the answer. */
export function answerParagraphs(answer: string): string[] {
  return answer.split(/(?<=\n\n)/);
}
