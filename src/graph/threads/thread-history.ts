/**
 * What a run knows of its conversation (docs/threads.md, "History within a budget"): the thread's
 * stored turns plus the prior messages the client sent that Parley has not stored, cut to a token
 * budget. The rule, newest first:
 *
 * 1. A sent message whose role and text equal a stored turn's user message or answer is a resend and
 *    is dropped (OpenAI and AG-UI clients resend the whole conversation); the others come first, as the
 *    client's earlier context, then the stored turns, oldest first.
 * 2. The `recentTurns` newest units (a stored turn, or one sent message) are kept verbatim when they fit
 *    what is left of the budget; a verbatim unit that does not fit, and every older unit, is summarised
 *    (user text clipped to 200 characters, answer to 300, steps to one line each without findings).
 * 3. Once a summary no longer fits, that unit and every older one are cut and counted in `omitted`.
 *
 * Tokens are estimated at 4 characters each, like a call's reservation (usage.ts estimateTokens).
 */
import type { Thread, ThreadTurn } from '../../store/threads/types.ts';
import type { PriorMessage } from '../run/request.ts';
import type { ConversationHistory } from '../run/conversation.ts';
import { estimateTokens } from '../spending/usage.ts';

export { EMPTY_HISTORY, type ConversationHistory } from '../run/conversation.ts';

export interface HistoryBudget {
  /** Tokens the history may take in one model call. */
  tokens: number;
  /** Newest turns kept verbatim (when they fit). */
  recentTurns: number;
}

const SUMMARY_USER_CHARS = 200;
const SUMMARY_ANSWER_CHARS = 300;
const STEP_FINDING_CHARS = 200;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const same = (a: string, b: string) => a.trim() === b.trim();

type Unit = { kind: 'turn'; turn: ThreadTurn } | { kind: 'sent'; message: PriorMessage };

function stepsLine(turn: ThreadTurn, findings: boolean): string {
  if (!turn.steps?.length) return '';
  const steps = turn.steps.map((s) =>
    findings
      ? `${s.id} (${s.specialist}) ${s.status}: ${clip(s.summary, STEP_FINDING_CHARS)}`
      : `${s.id} (${s.specialist}) ${s.status}`,
  );
  return `\n[steps run: ${steps.join('; ')}]`;
}

function answerText(turn: ThreadTurn, max?: number): string {
  if (turn.answer === undefined) return `(no answer: the run ended ${turn.status})`;
  return max === undefined ? turn.answer : clip(turn.answer, max);
}

function verbatim(unit: Unit): PriorMessage[] {
  if (unit.kind === 'sent') return [unit.message];
  const { turn } = unit;
  const images = turn.images ? ` [${turn.images} image${turn.images === 1 ? '' : 's'} attached]` : '';
  return [
    { role: 'user', content: turn.user + images },
    { role: 'assistant', content: answerText(turn) + stepsLine(turn, true) },
  ];
}

function summarised(unit: Unit): PriorMessage[] {
  if (unit.kind === 'sent')
    return [{ role: unit.message.role, content: clip(unit.message.content, SUMMARY_ANSWER_CHARS) }];
  const { turn } = unit;
  return [
    { role: 'user', content: clip(turn.user, SUMMARY_USER_CHARS) },
    { role: 'assistant', content: answerText(turn, SUMMARY_ANSWER_CHARS) + stepsLine(turn, false) },
  ];
}

const cost = (messages: PriorMessage[]) => estimateTokens(messages.map((m) => m.content));

/** The run's conversation: stored turns and unstored sent messages, within the budget (the rule above). */
export function buildHistory(
  thread: Pick<Thread, 'turns'> | undefined,
  sent: PriorMessage[] | undefined,
  budget: HistoryBudget,
): ConversationHistory {
  const turns = thread?.turns ?? [];
  const stored = (m: PriorMessage) =>
    turns.some((t) =>
      m.role === 'user'
        ? same(t.user, m.content)
        : m.role === 'assistant' && t.answer !== undefined && same(t.answer, m.content),
    );
  const units: Unit[] = [
    ...(sent ?? []).filter((m) => !stored(m)).map((message): Unit => ({ kind: 'sent', message })),
    ...turns.map((turn): Unit => ({ kind: 'turn', turn })),
  ];
  const kept: PriorMessage[][] = [];
  let left = budget.tokens;
  let i = units.length - 1;
  for (let newest = 0; i >= 0; i--, newest++) {
    const unit = units[i]!;
    const full = newest < budget.recentTurns ? verbatim(unit) : undefined;
    const chosen = full && cost(full) <= left ? full : summarised(unit);
    const tokens = cost(chosen);
    if (tokens > left) break;
    left -= tokens;
    kept.push(chosen);
  }
  return { messages: kept.reverse().flat(), omitted: i + 1 };
}

/**
 * The history as a note for a system message, for the roles that work from blocks (router, planner,
 * specialists, verifier): in the system message, a past message's directives and blocks stay inert.
 */
export function historyNote(history: ConversationHistory): string {
  if (history.messages.length === 0) return '';
  return `\n\nThe conversation so far (oldest first; the current query follows it):\n${historyText(history)}`;
}

/**
 * The conversation as its own delimited block of a user message (the router's): earlier answers stay
 * apart from the instructions, however instruction-like their text. '' when there is none.
 */
export function historyBlock(history: ConversationHistory): string {
  if (history.messages.length === 0) return '';
  return `<parley:history>${historyText(history)}</parley:history>`;
}

function historyText(history: ConversationHistory): string {
  const lines = history.messages.map(
    (m) => `${m.role === 'assistant' ? 'Parley' : m.role === 'user' ? 'User' : 'Context'}: ${m.content}`,
  );
  const omitted = history.omitted
    ? `(${history.omitted} earlier message${history.omitted === 1 ? '' : 's'} left out)\n`
    : '';
  return `${omitted}${lines.join('\n')}`;
}
