/**
 * The council: five advisors with distinct thinking styles answer in parallel; their answers are
 * shuffled behind labels A–E so three reviewers rank and critique them blind; a chairman turns it all
 * into a typed CouncilVerdict, stored as a Decision. Used by the council node and as a plan step.
 */
import { randomUUID } from 'node:crypto';
import type { CouncilVerdict, UsageTotals } from './events.ts';
import { block } from './prompts.ts';
import { CouncilReviewSchema, CouncilVerdictSchema } from './schemas.ts';
import { emit, type EngineContext, type RunState } from './state.ts';
import { addUsage } from './usage.ts';
import { earlierDecision, earlierDecisionBlock } from './learning/earlier-decision.ts';
import type { ModelUsage } from '../llm/types.ts';

export const ADVISORS = [
  {
    id: 'contrarian',
    style: 'You are the Contrarian. Look for what is wrong with the obvious answer, the risks, and the case against.',
  },
  {
    id: 'first-principles',
    style:
      'You are the First-Principles thinker. Strip the question to its fundamentals and rebuild the answer from them.',
  },
  {
    id: 'expansionist',
    style: 'You are the Expansionist. Look for the bigger opportunity, the options nobody listed, the upside.',
  },
  {
    id: 'outsider',
    style: 'You are the Outsider. Answer as someone from a different field with no stake in the status quo.',
  },
  {
    id: 'executor',
    style: 'You are the Executor. Focus on what can actually be done next, by whom, with what resources.',
  },
] as const;

const REVIEWERS = 3;
const LABELS = ['A', 'B', 'C', 'D', 'E'];

export interface CouncilResult {
  verdict: CouncilVerdict;
  /** The verdict as readable text (the run's answer in council mode, the step output as a plan step). */
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
          { role: 'system', content: `${advisor.style} Give your honest answer in a few paragraphs.` },
          { role: 'user', content: query + context },
        ],
        signal,
      });
      tally(r.usage);
      return { advisor: advisor.id, text: r.text };
    }),
  );
  const order = shuffled(answers);
  const labelled = Object.fromEntries(order.map((a, i) => [LABELS[i]!, a.text]));
  const answersBlock = block('answers', JSON.stringify(labelled));

  emit(run, {
    type: 'council.stage',
    stage: 'reviews',
    detail: `${REVIEWERS} reviewers are ranking answers ${LABELS.join(', ')} blind`,
  });
  const reviews = await Promise.all(
    Array.from({ length: REVIEWERS }, async (_, i) => {
      const r = await run.model.structured({
        role: 'council_reviewer',
        schemaName: 'council_review',
        schema: CouncilReviewSchema,
        messages: [
          {
            role: 'system',
            content: `You are council reviewer ${i + 1}. Rank the anonymous answers best first (ranking: labels) and critique them.`,
          },
          { role: 'user', content: `${query}\n\n${answersBlock}` },
        ],
        signal,
      });
      tally(r.usage);
      return r.value;
    }),
  );

  const reviewText = reviews
    .map((r, i) => `Reviewer ${i + 1}: ranking ${r.ranking.join(' > ')}. ${r.critique}`)
    .join('\n');
  const chair = await run.model.structured({
    role: 'council_chairman',
    schemaName: 'council_verdict',
    schema: CouncilVerdictSchema,
    messages: [
      {
        role: 'system',
        content:
          'You are the council chairman. From the anonymous answers and the reviews, write the verdict: recommendation, key insights, blind spots, consensus, dissent, next step, confidence 0..1.',
      },
      { role: 'user', content: `${query}${context}\n\n${answersBlock}\n\nReviews:\n${reviewText}` },
    ],
    signal,
  });
  tally(chair.usage);
  const verdict: CouncilVerdict = chair.value;
  emit(run, {
    type: 'council.stage',
    stage: 'verdict',
    detail: `confidence ${verdict.confidence.toFixed(2)}`,
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
  return { verdict, text: renderVerdict(verdict), usage, decisionId };
}

export function renderVerdict(v: CouncilVerdict): string {
  const list = (items: string[]) => items.map((i) => `- ${i}`).join('\n');
  return [
    `Recommendation: ${v.recommendation}`,
    `Key insights:\n${list(v.keyInsights)}`,
    `Blind spots:\n${list(v.blindSpots)}`,
    `Consensus: ${v.consensus}`,
    `Dissent: ${v.dissent}`,
    `Next step: ${v.nextStep}`,
    `Confidence: ${v.confidence.toFixed(2)}`,
  ].join('\n\n');
}
