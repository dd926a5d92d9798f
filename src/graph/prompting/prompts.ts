/**
 * Prompt building blocks. Context goes in <parley:…> blocks (docs/scripted-model.md): real models
 * read them as plain text, the scripted model parses them.
 */
import type { StepOutcome } from '../run/step-outcome.ts';
import type { FittedPiece } from './context-piece.ts';
import type { SpecialistCandidate } from '../../knowledge/store.ts';

export const block = (name: string, content: string) => `<parley:${name}>${content}</parley:${name}>`;

/** A clip that says so: the reader is told how much of the text it was not shown. */
export const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters not shown]` : text;

/** What a summarized piece says about itself, in the prompt beside it. */
export const summarizedNote = (originalChars: number) =>
  `summarized by Parley to fit the context; the full output has ${originalChars} characters`;

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

/**
 * The steps' outcomes as a <parley:steps> block: every output whole, or — when `fitted` holds a
 * summary of it (context-budget.ts) — the summary, marked `summarized` with its original length.
 */
export function stepsBlock(
  outcomes: StepOutcome[],
  fitted?: ReadonlyMap<string, FittedPiece>,
  /** The verifier's evidence beyond a step's own report: the tool calls it made, from its lineage. */
  withToolCalls = false,
  /** An answer written with citations: the numbers of the references each step read (answer-references.ts). */
  references?: ReadonlyMap<string, number[]>,
): string {
  return block(
    'steps',
    JSON.stringify(
      outcomes.map((o) => {
        const piece = fitted?.get(o.stepId);
        return {
          id: o.stepId,
          specialist: o.specialist,
          status: o.status === 'succeeded' ? 'succeeded' : o.status,
          output: piece?.text ?? o.output ?? o.error ?? '',
          ...(references ? { references: references.get(o.stepId) ?? [] } : {}),
          ...(withToolCalls
            ? {
                toolCalls: (o.lineage?.toolCalls ?? []).map((t) => ({
                  tool: t.tool,
                  status: t.status,
                  ...(t.targets ? { targets: t.targets } : {}),
                })),
              }
            : {}),
          ...(piece?.summarized
            ? {
                summarized: true,
                originalChars: piece.summarized.originalChars,
                note: summarizedNote(piece.summarized.originalChars),
              }
            : {}),
        };
      }),
    ),
  );
}

/**
 * A dependency's result inlined where an objective quotes {{id.result}}: delimited, so the objective's
 * own words around it stay apart from it, and marked when it was summarized to fit.
 */
export function resultBlock(piece: FittedPiece): string {
  const attrs = piece.summarized ? ` summarized="true" originalChars="${piece.summarized.originalChars}"` : '';
  return `<parley:result step="${piece.stepId}"${attrs}>${piece.text}</parley:result>`;
}

/**
 * The start of a text, cut at a line end, with a note of what is missing — never inside a code block
 * without closing it and saying so.
 */
export function markedCut(text: string, maxChars: number, wholeChars = text.length): string {
  if (wholeChars <= maxChars) return text;
  let head = text.slice(0, maxChars);
  const lineEnd = head.lastIndexOf('\n');
  if (lineEnd > maxChars / 2) head = head.slice(0, lineEnd);
  const openFence = (head.match(/^\s*```/gm)?.length ?? 0) % 2 === 1;
  const note = `[cut here: ${wholeChars - head.length} of ${wholeChars} characters not shown${openFence ? ', inside a code block' : ''}]`;
  return `${head}${openFence ? '\n```' : ''}\n${note}`;
}

const round = (n: number) => Math.round(n * 100) / 100;
