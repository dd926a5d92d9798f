/**
 * Prompt building blocks. Context goes in <parley:…> blocks (docs/scripted-model.md): real models
 * read them as plain text, the scripted model parses them.
 */
import type { StepOutcome } from './scheduler.ts';
import type { MemoryHit, SpecialistCandidate } from '../knowledge/store.ts';

export const block = (name: string, content: string) => `<parley:${name}>${content}</parley:${name}>`;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [truncated]` : text);

/** A specialist's tools as the planner sees them: what only reads, and what changes things. */
export interface ToolKinds {
  readOnly: string[];
  changes: string[];
}

/** A row of <parley:specialists> that is not a registry specialist (the built-in council). */
export interface ExtraCandidate {
  id: string;
  kind: string;
  description: string;
  domains: string[];
}

/**
 * <parley:specialists>: each candidate with its kind, its tools (when `toolsOf` knows them) and, only
 * when it has run before, its record. The planner's prompt explains every field.
 */
export function specialistsBlock(
  candidates: SpecialistCandidate[],
  extra: ExtraCandidate[] = [],
  toolsOf?: (specialistId: string) => ToolKinds | undefined,
): string {
  const rows = candidates.map((c) => {
    const tools = toolsOf?.(c.specialist.id);
    const p = c.proficiency;
    return {
      id: c.specialist.id,
      kind: c.specialist.kind,
      description: c.specialist.description,
      domains: c.specialist.domains,
      ...(tools && (tools.readOnly.length || tools.changes.length) ? { tools } : {}),
      relevance: round(c.relevance),
      // Self-model figures, only for a specialist that has a record: no run, no figures to weigh.
      ...(p && p.runs > 0
        ? {
            record: {
              runs: p.runs,
              successRate: round(p.successes / p.runs),
              meanScore: round(p.meanScore),
              meanLatencyMs: Math.round(p.meanLatencyMs),
              meanCostUsd: p.meanCostUsd,
            },
          }
        : {}),
    };
  });
  return block('specialists', JSON.stringify([...rows, ...extra]));
}

/** Whether any candidate has a track record (the planner is told to weigh records only then). */
export const hasRecord = (candidates: SpecialistCandidate[]) => candidates.some((c) => (c.proficiency?.runs ?? 0) > 0);

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
