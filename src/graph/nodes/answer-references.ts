/**
 * The numbered references of an answer written with `citations: "numbered"` (RunRequest.citations):
 * every named source the answer's steps read (StepLineage.named), numbered once in step order, and the
 * list Parley appends after the answer. A reference names a file, a page, a remote agent or a tool —
 * never a step id; the steps that read it travel as data (AnswerReference.stepIds).
 */
import type { AnswerReference, NamedSource } from '../run/events.ts';
import type { StepOutcome } from '../run/step-outcome.ts';

export interface References {
  list: AnswerReference[];
  /** The numbers of each step's references (the synthesizer shows them beside its output). */
  byStep: Map<string, number[]>;
}

const keyOf = (s: NamedSource) => `${s.kind}:${s.uri ?? s.title}`;

export function referencesOf(outcomes: StepOutcome[]): References {
  const list: AnswerReference[] = [];
  const byKey = new Map<string, AnswerReference>();
  const byStep = new Map<string, number[]>();
  for (const o of outcomes) {
    for (const source of o.lineage?.named ?? []) {
      let ref = byKey.get(keyOf(source));
      if (!ref) {
        ref = { n: list.length + 1, ...source, stepIds: [] };
        byKey.set(keyOf(source), ref);
        list.push(ref);
      }
      if (!ref.stepIds.includes(o.stepId)) ref.stepIds.push(o.stepId);
      const numbers = byStep.get(o.stepId) ?? [];
      if (!numbers.includes(ref.n)) byStep.set(o.stepId, [...numbers, ref.n]);
    }
  }
  return { list, byStep };
}

/** How a reference reads in the list: a file by its name, a page by its address, an agent or tool said as such. */
function describe(ref: AnswerReference): string {
  switch (ref.kind) {
    case 'file':
      return `${ref.title} (file)`;
    case 'web':
      return ref.title;
    case 'agent':
      return `${ref.title} (remote agent)`;
    case 'tool':
      return `${ref.title} (tool)`;
  }
}

/** The list appended after the answer; "" when there is nothing to list. */
export function referencesText(list: AnswerReference[]): string {
  if (!list.length) return '';
  return `\n\nReferences:\n${list.map((r) => `[${r.n}] ${describe(r)}`).join('\n')}`;
}

/** The <parley:references> rows the synthesizer reads: number, kind and name (no step ids, no paths). */
export const referenceRows = (list: AnswerReference[]) => list.map((r) => ({ n: r.n, kind: r.kind, title: r.title }));
