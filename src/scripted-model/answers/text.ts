/** Plain text answers: deterministic, built from the question (and step results or tool results when given). */
import { contentText, type RequestContext, type ScriptedMessage } from '../context.ts';

const clip = (text: string, n: number) => (text.length > n ? text.slice(0, n) + '…' : text);

/** Words per line of a [[words:N]] answer (lines let a reader split it where a real text would break). */
const WORDS_PER_LINE = 12;

/** Words of the usual sentence a [[words:N]] answer starts with (the rest is numbered filler). */
const LEAD_WORDS = 20;

/**
 * [[words:N]]: an answer exactly N words long: the usual sentence's first words (at most 20), then
 * `w<position>` filler, so the last word is `w<N>` and a test can see whether the end of a long output arrived.
 */
export function answerOfWords(sentence: string, n: number): string {
  const words = sentence.split(/\s+/).filter(Boolean).slice(0, Math.min(n, LEAD_WORDS));
  for (let i = words.length + 1; i <= n; i++) words.push(`w${i}`);
  const lines: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_LINE) lines.push(words.slice(i, i + WORDS_PER_LINE).join(' '));
  return lines.join('\n');
}

const OUTPUT_BLOCK = /<parley:output>([\s\S]*?)<\/parley:output>/;
const WORD_LIMIT = /at most (\d+) words/;

/** The summarizer's answer: "Summary:" and the first words of the <parley:output> it was given, within its word limit. */
function summaryAnswer(lastUserText: string): string {
  const output = OUTPUT_BLOCK.exec(lastUserText)?.[1] ?? '';
  const limit = Number(WORD_LIMIT.exec(lastUserText)?.[1] ?? 50);
  const words = output.split(/\s+/).filter(Boolean);
  return `Summary: ${words.slice(0, Math.max(1, limit - 1)).join(' ')}`;
}

const ANSWER_BLOCK = /<parley:answer>([\s\S]*?)<\/parley:answer>/;
const NOTES_BLOCK = /<parley:verifier_notes>([\s\S]*?)<\/parley:verifier_notes>/;
const REFERENCES_BLOCK = /<parley:references>([\s\S]*?)<\/parley:references>/;

/**
 * The editor (the synthesizer given an answer already written, a team manager's): the answer as it was,
 * with one line that answers the verifier's notes, and the citations asked for after its first line.
 */
function editedAnswer(lastUserText: string, answer: string): string {
  const notes = NOTES_BLOCK.exec(lastUserText)?.[1]?.trim();
  const cited = citeAll(lastUserText, answer);
  return notes ? `${cited}\n\nRevised where the review asked: ${notes}` : cited;
}

/** With a <parley:references> block: every reference cited as [n] at the end of the text's first line. */
function citeAll(lastUserText: string, text: string): string {
  const raw = REFERENCES_BLOCK.exec(lastUserText)?.[1];
  if (!raw) return text;
  let rows: { n?: unknown }[] = [];
  try {
    rows = JSON.parse(raw) as { n?: unknown }[];
  } catch {
    return text;
  }
  const marks = rows.map((r) => (typeof r.n === 'number' ? `[${r.n}]` : '')).join('');
  const end = text.indexOf('\n');
  return end < 0 ? `${text} ${marks}` : `${text.slice(0, end)} ${marks}${text.slice(end)}`;
}

/** What a step's answer quotes of its request: the objective without the step's id, which a report never repeats. */
const quotedRequest = (query: string) => query.replace(/Your objective \(step [^)]*\):/, 'Your objective:');

export function textAnswer(ctx: RequestContext, role: string, messages: ScriptedMessage[]): string {
  if (role === 'summarizer') return summaryAnswer(ctx.lastUserText);
  const written = role === 'synthesizer' ? ANSWER_BLOCK.exec(ctx.lastUserText)?.[1] : undefined;
  if (written !== undefined) return editedAnswer(ctx.lastUserText, written);
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const toolResults = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
  if (toolResults.length) {
    const quoted = toolResults.map((m) => `"${clip(contentText(m.content), 300)}"`).join('; ');
    return `Based on the tool results ${quoted}, here is the answer to "${quotedRequest(ctx.query)}".`;
  }
  const steps = ctx.steps ?? [];
  if (steps.length) {
    // Like a model following the synthesizer's prompt: what the steps found, never which step or specialist found it.
    const lines = steps.map((s) =>
      s.status && !/^(succeeded|success|ok|completed|done)$/.test(s.status)
        ? `- (one part is missing: ${s.status})`
        : `- ${clip(s.output, 300)}`,
    );
    return citeAll(
      ctx.lastUserText,
      `Answer to "${ctx.query}", synthesized from ${steps.length} step result${steps.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
    );
  }
  if (role === 'specialist') {
    const sentence = `Scripted specialist result for "${quotedRequest(ctx.query)}": the objective was analysed and the key points are listed here.`;
    return ctx.directives.words ? answerOfWords(sentence, ctx.directives.words) : sentence;
  }
  if (role === 'council_advisor') return advisorAnswer(ctx, messages);
  return `Scripted answer to "${ctx.query}": this reply comes from Parley's built-in scripted model, so it repeats what was asked.`;
}

/**
 * A council advisor's answer: the question, then its angle in its own words (the sentence after "You are the …"
 * in its system prompt), so the five answers differ in text and length as real advisors' do, without the advisor's name.
 */
function advisorAnswer(ctx: RequestContext, messages: ScriptedMessage[]): string {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => contentText(m.content))
    .join(' ');
  const angle = /You are the [^.]+\.\s*([^.]+\.)/.exec(system)?.[1] ?? '';
  return `On "${ctx.query}": ${angle ? `my angle was to ${angle.charAt(0).toLowerCase()}${angle.slice(1)}` : 'my view.'} So weigh it before you commit.`;
}
