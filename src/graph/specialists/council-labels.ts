/**
 * The council's blind labels. The advisors' answers are put in a random order once; each reader (a
 * reviewer, the chairman) then gets its own rotation of that order, labelled A to E by position. So a
 * reader's labels and order are its own (a reviewer's "A" is another reviewer's "C"), every answer sits
 * at a different position for each reviewer (position bias spread out), and no reader can tell which
 * advisor wrote what. The mapping of each reader's labels goes into the council events, never into a
 * prompt's answer or the run's answer.
 */
import type { CouncilRanking } from '../../knowledge/records.ts';

export const LABELS = ['A', 'B', 'C', 'D', 'E'] as const;

/** One advisor's answer, by advisor id. */
export interface AdvisorAnswer {
  advisor: string;
  text: string;
}

/** A reader's view: label → the advisor behind it, in the order the reader is shown the answers. */
export type Labelling = Record<string, string>;

/** Reviewer i (0-based) reads rotation 2i; the chairman reads rotation 1, an order no reviewer had. */
export const reviewerRotation = (i: number) => (i * 2) % LABELS.length;
export const CHAIRMAN_ROTATION = 1;

/** The labelling of `order` (advisor ids, the council's random order) rotated by `rotation`. */
export function labelling(order: readonly string[], rotation: number): Labelling {
  const n = order.length;
  return Object.fromEntries(order.map((_, p) => [LABELS[p]!, order[(p + rotation) % n]!]));
}

/** One delimited block per answer, in the labelling's order: no escaped JSON for a reader to decode. */
export function candidateBlocks(labels: Labelling, answers: readonly AdvisorAnswer[]): string {
  const textOf = new Map(answers.map((a) => [a.advisor, a.text]));
  return Object.entries(labels)
    .map(([label, advisor]) => `<parley:candidate label="${label}">\n${textOf.get(advisor) ?? ''}\n</parley:candidate>`)
    .join('\n\n');
}

/** A label as a model may write it ("A", "a", "Answer A", "A."), or undefined when it names none. */
function labelIn(text: string): string | undefined {
  const m = /^\s*(?:answer\s+)?([a-e])\b/i.exec(text);
  return m ? m[1]!.toUpperCase() : undefined;
}

/** A reviewer's answer in its own labels. */
export interface LabelledReview {
  assessments: { label: string; critique: string }[];
  ranking: string[];
}

/**
 * A review as data: its labels resolved to advisor ids. A label the reviewer did not have is dropped,
 * a repeated one counts once (the ranking stays partial rather than invented).
 */
export function resolveReview(reviewer: number, review: LabelledReview, labels: Labelling): CouncilRanking {
  const advisorOf = (raw: string) => {
    const label = labelIn(raw);
    return label ? labels[label] : undefined;
  };
  const ranking = [...new Set(review.ranking.map(advisorOf).filter((a): a is string => a !== undefined))];
  const critiques: Record<string, string> = {};
  for (const a of review.assessments) {
    const advisor = advisorOf(a.label);
    if (advisor && !(advisor in critiques)) critiques[advisor] = a.critique;
  }
  return { reviewer, ranking, critiques };
}

/**
 * A resolved review as the chairman reads it: one delimited block per reviewer, in the chairman's labels
 * (its ranking, then its critique of each answer in the chairman's label order).
 */
export function reviewBlock(review: CouncilRanking, labels: Labelling): string {
  const labelOf = new Map(Object.entries(labels).map(([label, advisor]) => [advisor, label]));
  const critiques = Object.entries(labels)
    .filter(([, advisor]) => advisor in review.critiques)
    .map(([label, advisor]) => `${label}: ${review.critiques[advisor]}`);
  return [
    `<parley:review reviewer="${review.reviewer}">`,
    `Ranking, best first: ${review.ranking.map((a) => labelOf.get(a)!).join(', ')}`,
    ...critiques,
    '</parley:review>',
  ].join('\n');
}
