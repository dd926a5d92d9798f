/**
 * Prompt building blocks. Context goes in <parley:…> blocks (docs/scripted-model.md): real models
 * read them as plain text, the scripted model parses them.
 */
import type { StepOutcome } from './scheduler.ts';
import type { MemoryHit, SpecialistCandidate } from '../knowledge/store.ts';

export const block = (name: string, content: string) => `<parley:${name}>${content}</parley:${name}>`;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [truncated]` : text);

export function specialistsBlock(
  candidates: SpecialistCandidate[],
  extra: { id: string; description: string; domains: string[] }[] = [],
): string {
  const rows = candidates.map((c) => ({
    id: c.specialist.id,
    description: c.specialist.description,
    domains: c.specialist.domains,
    kind: c.specialist.kind,
    relevance: round(c.relevance),
    // Self-model figures: the planner should prefer specialists with a good record.
    ...(c.proficiency
      ? {
          runs: c.proficiency.runs,
          successRate: c.proficiency.runs ? round(c.proficiency.successes / c.proficiency.runs) : null,
          meanScore: round(c.proficiency.meanScore),
          meanLatencyMs: Math.round(c.proficiency.meanLatencyMs),
          meanCostUsd: c.proficiency.meanCostUsd,
        }
      : {}),
  }));
  return block('specialists', JSON.stringify([...rows, ...extra]));
}

export function stepsBlock(outcomes: StepOutcome[], maxChars = 4000): string {
  return block(
    'steps',
    JSON.stringify(
      outcomes.map((o) => ({
        id: o.stepId,
        specialist: o.specialist,
        status: o.status === 'succeeded' ? 'succeeded' : o.status,
        output: clip(o.output ?? o.error ?? '', maxChars),
      })),
    ),
  );
}

/** Execution memory for a system message (never the user message, so old directives stay inert). */
export function memoryNote(hits: MemoryHit[] | undefined): string {
  if (!hits?.length) return '';
  const lines = hits.map(
    (h) => `- Earlier run ${h.runId} (score ${h.score ?? 'n/a'}): Q: ${clip(h.query, 200)} A: ${clip(h.answer, 400)}`,
  );
  return `\n\nRelevant execution memory from earlier runs:\n${lines.join('\n')}`;
}

const round = (n: number) => Math.round(n * 100) / 100;
