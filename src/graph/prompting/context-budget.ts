/**
 * Context budgets (docs/engine.md "Context budgets"): step outputs reach the roles that read them —
 * verifier, synthesizer, dependent steps, a dynamic team's managers — whole, as long as they fit the
 * reading model's context window with room for the rest of its prompt and its answer. When they do not,
 * the largest are shortened by a summarizing call (role `summarizer`, metered like every call) and
 * marked as summarized with their original length; nothing is ever cut silently.
 *
 * The budget of a call: the window of the model that reads it (EngineDeps.contextWindow), minus the room
 * for its answer (its max output, at most a quarter of the window), minus the rest of its prompt and a
 * margin. Tokens are estimated at 4 characters each, like a call's reservation (usage.ts).
 */
import { createHash } from 'node:crypto';
import type { ModelRole } from '../../llm/types.ts';
import { defaultMaxOutputTokens } from '../spending/call-budget.ts';
import { markedCut } from './prompts.ts';
import type { StepOutcome } from '../run/step-outcome.ts';
import type { EngineContext, RunState } from '../run/state.ts';
import { BudgetExceededError, estimateTokens } from '../spending/usage.ts';

import type { ContextPiece, FittedPiece } from './context-piece.ts';

export type { ContextPiece, FittedPiece } from './context-piece.ts';

/** Tokens kept free beside the estimate (system wording, JSON around the pieces, the estimate's error). */
const MARGIN_TOKENS = 512;
/** A summary is never asked to be shorter than this (a summary of nothing helps nobody). */
const MIN_SUMMARY_TOKENS = 64;
const CHARS_PER_TOKEN = 4;
const TARGET_STEP = 256;

/** Whom the pieces are for: the role (and the step's model, when it names one) whose model reads them. */
export interface Reader {
  role: ModelRole;
  model?: string;
}

/** Tokens a call of `reader` may spend on its prompt: the window less the room for its answer and the margin. */
export function promptBudget(run: RunState, ctx: EngineContext, reader: Reader): number {
  const window = ctx.contextWindow(reader.role, run.model.modelFor(reader.role, reader.model));
  const answer = Math.min(
    ctx.maxOutputTokens(reader.role) ?? defaultMaxOutputTokens(reader.role),
    Math.floor(window / 4),
  );
  return Math.max(0, window - answer - MARGIN_TOKENS);
}

/**
 * The pieces within what is left of the reader's budget once `rest` (the rest of its prompt) is
 * counted. When they fit they come back unchanged; otherwise the pieces larger than a fair share of
 * what is left are summarized down to it, the smaller ones staying whole.
 */
export async function fitPieces(
  run: RunState,
  ctx: EngineContext,
  reader: Reader,
  rest: string[],
  pieces: ContextPiece[],
): Promise<FittedPiece[]> {
  const available = promptBudget(run, ctx, reader) - estimateTokens(rest);
  const cost = (p: ContextPiece) => estimateTokens([p.text]);
  if (pieces.reduce((n, p) => n + cost(p), 0) <= available) return pieces;
  // Smallest first: each piece that fits its fair share of what is left stays whole and leaves more for the others.
  const order = pieces.map((p, i) => ({ p, i })).sort((a, b) => cost(a.p) - cost(b.p));
  const targets = new Map<number, number>();
  let left = Math.max(0, available);
  order.forEach(({ p, i }, k) => {
    const share = Math.floor(left / (order.length - k));
    if (cost(p) <= share) left -= cost(p);
    else {
      // Rounded down to a step of 256, so readers with nearly the same room share one summary (summarizeOnce).
      const target = Math.max(MIN_SUMMARY_TOKENS, share - (share % TARGET_STEP));
      targets.set(i, target);
      left -= Math.min(left, target);
    }
  });
  return Promise.all(
    pieces.map(async (p, i) => {
      const target = targets.get(i);
      if (target === undefined) return p;
      const text = await summarizeOnce(run, ctx, reader, p, target);
      return { stepId: p.stepId, text, summarized: { originalChars: p.text.length } };
    }),
  );
}

/**
 * One summary per run for the same output, reader model and length: the verifier and the synthesizer
 * usually read the same outputs through the same model, and pay for one summary.
 */
function summarizeOnce(
  run: RunState,
  ctx: EngineContext,
  reader: Reader,
  piece: ContextPiece,
  targetTokens: number,
): Promise<string> {
  const model = run.model.modelFor(reader.role, reader.model);
  const digest = createHash('sha256').update(piece.text).digest('hex');
  const key = `${model}\n${targetTokens}\n${piece.stepId}\n${digest}`;
  const summaries = (run.summaries ??= new Map());
  let summary = summaries.get(key);
  if (!summary) {
    summary = summarize(run, ctx, reader, piece, targetTokens);
    summaries.set(key, summary);
    // A failed call is not remembered: the next reader asks again.
    summary.catch(() => summaries.delete(key));
  }
  return summary;
}

const SUMMARIZER_SYSTEM = `You shorten the output of one step of a plan so that it fits another model's context.
Keep every fact, figure, name, decision, constraint and piece of code the reader needs, in the order given; drop
repetition and filler. Never cut code in the middle: keep a code block whole or describe what it does. Write the
shortened text only, with no preamble and nothing about yourself. Stay within the word limit you are given.`;

/**
 * One step's output, shortened to about `targetTokens` by the summarizer (a text too long for the
 * summarizer's own window is summarized in parts, each to its share). Budgets and cancellation end
 * the run; a failing summarizer model leaves an explicitly marked cut, never a silent one.
 */
async function summarize(
  run: RunState,
  ctx: EngineContext,
  reader: Reader,
  piece: ContextPiece,
  targetTokens: number,
): Promise<string> {
  // A summarizer with no settings of its own runs on the model of the role it serves.
  const own = ctx.ownModelRoles.includes('summarizer');
  const settingsRole = own ? undefined : reader.role;
  const summarizer: Reader = own ? { role: 'summarizer' } : reader;
  const room = promptBudget(run, ctx, summarizer) - estimateTokens([SUMMARIZER_SYSTEM]);
  const parts = splitToFit(piece.text, Math.max(MIN_SUMMARY_TOKENS, room) * CHARS_PER_TOKEN);
  const each = Math.max(MIN_SUMMARY_TOKENS, Math.floor(targetTokens / parts.length));
  try {
    const summaries = await Promise.all(
      parts.map(async (part, k) => {
        const words = Math.max(1, Math.floor(each * 0.75));
        const which = parts.length > 1 ? ` (part ${k + 1} of ${parts.length})` : '';
        const { text } = await run.model.chat({
          role: 'summarizer',
          ...(settingsRole ? { settingsRole } : {}),
          ...(!own && reader.model ? { model: reader.model } : {}),
          maxTokens: each,
          messages: [
            { role: 'system', content: SUMMARIZER_SYSTEM },
            {
              role: 'user',
              content: `Shorten the output of step "${piece.stepId}"${which} to at most ${words} words.\n\n<parley:output>${part}</parley:output>`,
            },
          ],
          signal: run.abort.signal,
        });
        return text.trim();
      }),
    );
    ctx.logger.info('step output summarized to fit the context', {
      runId: run.id,
      stepId: piece.stepId,
      role: reader.role,
      originalChars: piece.text.length,
      chars: summaries.join('\n\n').length,
    });
    return summaries.join('\n\n');
  } catch (err) {
    if (run.abort.signal.aborted || err instanceof BudgetExceededError) throw err;
    ctx.logger.warn('summarizing a step output failed; it is shown cut, and says so', {
      runId: run.id,
      stepId: piece.stepId,
      error: (err as Error).message,
    });
    return markedCut(piece.text, targetTokens * CHARS_PER_TOKEN);
  }
}

/** The text in parts of at most `maxChars`, split at a paragraph or line end where there is one. */
export function splitToFit(text: string, maxChars: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const at = Math.max(window.lastIndexOf('\n\n'), window.lastIndexOf('\n'));
    const end = at > maxChars / 2 ? at + 1 : maxChars;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest.length || parts.length === 0) parts.push(rest);
  return parts;
}

/** The outcomes' outputs (or errors) fitted for `reader`, by step id, for stepsBlock. */
export async function fitStepOutputs(
  run: RunState,
  ctx: EngineContext,
  reader: Reader,
  rest: string[],
  outcomes: StepOutcome[],
): Promise<Map<string, FittedPiece>> {
  const pieces = outcomes.map((o) => ({ stepId: o.stepId, text: o.output ?? o.error ?? '' }));
  const fitted = await fitPieces(run, ctx, reader, rest, pieces);
  return new Map(fitted.map((p) => [p.stepId, p]));
}
