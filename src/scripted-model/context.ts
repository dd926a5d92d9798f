/**
 * Reads what a request gives the scripted model to work with: the <parley:…> blocks, the [[…]]
 * directives and the last user message. Parsing is forgiving on purpose: a block whose JSON does not
 * parse is treated as absent, never as an error, so prompt changes degrade answers instead of failing.
 */

export interface ScriptedMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface SpecialistCandidate {
  id: string;
  description: string;
  domains: string[];
}

export interface StepReport {
  id: string;
  specialist: string;
  status: string;
  output: string;
}

export interface Directives {
  route?: 'direct' | 'plan' | 'council' | 'dynamic';
  steps?: number;
  chain: boolean;
  verify?: number[];
  tools: { tool: string; args: unknown }[];
  fault?: string;
  latencyMs?: number;
  /** [[stepmodel:NAME]]: every plan step names this model. */
  stepModel?: string;
  /** [[planspecialist:ID]]: every plan step names this specialist, offered or not (plan validation tests). */
  planSpecialist?: string;
  /** Dynamic teams: [[spawn:N]] agents per manager, [[depth:D]] levels of managers, [[message:TEXT]] between siblings, [[deadlock]], [[detach]]. */
  spawn?: number;
  depth?: number;
  message?: string;
  deadlock: boolean;
  detach: boolean;
  /** [[words:N]]: a specialist's text answer is N words long. */
  words?: number;
  /** [[edits:miss]]: the editor's `answer_edits` name a passage the answer does not hold (Parley then rewrites it whole). */
  editsMiss?: boolean;
}

/** A team agent's view of itself: the <parley:team> block of its system prompt. */
export interface TeamInfo {
  agent: string;
  role: 'manager' | 'worker';
  depth: number;
  maxDepth: number;
  parent?: string;
  /** The agents spawned by the same spawner (from the block's "agents"), this one excluded. */
  siblings: string[];
}

export interface RequestContext {
  /** The user's question: the <parley:query> block, else the last user message without directives. */
  query: string;
  lastUserText: string;
  specialists?: SpecialistCandidate[];
  steps?: StepReport[];
  round?: number;
  answers?: Record<string, string>;
  /** Directives found in any user message (fault: only in the last one). */
  directives: Directives;
  /** Set when the request comes from an agent of a dynamic team. */
  team?: TeamInfo;
  /** <parley:mode>: "hybrid" when the planner may mark steps as managers. */
  mode?: string;
  /** A judge's request (evaluation suites): the <parley:rubric> and the <parley:answer> it grades. */
  rubric?: string;
  answer?: string;
  /** A pairwise judge's request (`parley eval --versus direct`): the two answers and the author's criteria, if any. */
  answerA?: string;
  answerB?: string;
  criteria?: string;
}

/** Text of a message's content, whether a string or an array of content parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : '',
      )
      .join('\n');
  }
  return '';
}

/** The inner text of the last <parley:name>…</parley:name> block across the messages. */
export function block(texts: string[], name: string): string | undefined {
  const re = new RegExp(`<parley:${name}>([\\s\\S]*?)</parley:${name}>`, 'g');
  let found: string | undefined;
  for (const text of texts) for (const m of text.matchAll(re)) found = m[1]!.trim();
  return found;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : v === undefined || v === null
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

function parseSpecialists(raw: unknown): SpecialistCandidate[] | undefined {
  const list = Array.isArray(raw)
    ? raw
    : raw && typeof raw === 'object' && Array.isArray((raw as { specialists?: unknown }).specialists)
      ? (raw as { specialists: unknown[] }).specialists
      : undefined;
  if (!list) return undefined;
  return list
    .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object')
    .map((s) => ({
      id: str(s.id ?? s.name),
      description: str(s.description),
      domains: Array.isArray(s.domains)
        ? s.domains.map(str)
        : typeof s.domains === 'string'
          ? s.domains.split(',').map((d) => d.trim())
          : [],
    }))
    .filter((s) => s.id !== '');
}

function parseSteps(raw: unknown): StepReport[] | undefined {
  const list = Array.isArray(raw)
    ? raw
    : raw && typeof raw === 'object'
      ? Object.entries(raw as object).map(([id, v]) => ({ id, ...(v as object) }))
      : undefined;
  if (!list) return undefined;
  return list
    .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object')
    .map((s) => ({
      id: str(s.id ?? s.stepId),
      specialist: str(s.specialist),
      status: str(s.status).toLowerCase(),
      output: str(s.output ?? s.result ?? s.error),
    }));
}

const CANDIDATE = /<parley:candidate label="([^"]*)">([\s\S]*?)<\/parley:candidate>/g;

/** The council's <parley:candidate label="X"> blocks, from the last message that has any, in the order shown. */
function candidates(texts: string[]): Record<string, string> | undefined {
  let found: Record<string, string> | undefined;
  for (const text of texts) {
    const blocks = [...text.matchAll(CANDIDATE)];
    if (blocks.length) found = Object.fromEntries(blocks.map((m) => [m[1]!, m[2]!.trim()]));
  }
  return found;
}

function parseAnswers(raw: unknown): Record<string, string> | undefined {
  if (Array.isArray(raw)) {
    return Object.fromEntries(
      raw.map((a, i) =>
        a && typeof a === 'object'
          ? [
              str((a as { label?: unknown }).label) || String.fromCharCode(65 + i),
              str((a as { answer?: unknown; text?: unknown }).answer ?? (a as { text?: unknown }).text),
            ]
          : [String.fromCharCode(65 + i), str(a)],
      ),
    );
  }
  if (raw && typeof raw === 'object') return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, str(v)]));
  return undefined;
}

const DIRECTIVE = /\[\[\s*([a-z]+)\s*(?::\s*([\s\S]*?))?\s*\]\](?!\])/gi;

/**
 * Directives of a request. route/steps/chain/verify/latency: anywhere in `texts` (user messages and the
 * query block). fault: the last user message only. tool: the last user message or the query block.
 */
export function parseDirectives(texts: string[], lastUserText: string, queryBlock?: string): Directives {
  const d: Directives = { chain: false, tools: [], deadlock: false, detach: false };
  for (const text of texts) {
    for (const m of text.matchAll(DIRECTIVE)) {
      const name = m[1]!.toLowerCase();
      const arg = (m[2] ?? '').trim();
      if (name === 'route' && ['direct', 'plan', 'council', 'dynamic'].includes(arg))
        d.route = arg as Directives['route'];
      else if (name === 'steps' && Number(arg) > 0) d.steps = Math.floor(Number(arg));
      else if (name === 'chain') d.chain = true;
      else if (name === 'verify') {
        const scores = arg
          .split(',')
          .map(Number)
          .filter((n) => Number.isFinite(n));
        if (scores.length) d.verify = scores;
      } else if (name === 'latency' && Number(arg) >= 0) d.latencyMs = Number(arg);
      else if (name === 'stepmodel' && arg) d.stepModel = arg;
      else if (name === 'planspecialist' && arg) d.planSpecialist = arg;
      else if (name === 'spawn' && Number(arg) >= 0) d.spawn = Math.floor(Number(arg));
      else if (name === 'depth' && Number(arg) > 0) d.depth = Math.floor(Number(arg));
      else if (name === 'message' && arg) d.message = arg;
      else if (name === 'deadlock') d.deadlock = true;
      else if (name === 'detach') d.detach = true;
      else if (name === 'words' && Number(arg) > 0) d.words = Math.floor(Number(arg));
      else if (name === 'edits' && arg === 'miss') d.editsMiss = true;
    }
  }
  for (const m of lastUserText.matchAll(DIRECTIVE)) {
    if (m[1]!.toLowerCase() === 'fault') d.fault = (m[2] ?? '').trim().toLowerCase();
  }
  const seen = new Set<string>();
  for (const text of queryBlock === undefined ? [lastUserText] : [lastUserText, queryBlock]) {
    for (const m of text.matchAll(DIRECTIVE)) {
      const arg = (m[2] ?? '').trim();
      if (m[1]!.toLowerCase() !== 'tool' || !arg || seen.has(arg)) continue;
      seen.add(arg);
      const space = arg.search(/\s/);
      const tool = space < 0 ? arg : arg.slice(0, space);
      const rawArgs = space < 0 ? '' : arg.slice(space + 1).trim();
      d.tools.push({ tool, args: rawArgs ? (parseJson(rawArgs) ?? {}) : {} });
    }
  }
  return d;
}

export const stripDirectives = (text: string): string => text.replace(DIRECTIVE, '').replace(/\s+/g, ' ').trim();
const stripBlocks = (text: string): string => text.replace(/<parley:([a-z_]+)>[\s\S]*?<\/parley:\1>/g, ' ');

export function readContext(messages: ScriptedMessage[]): RequestContext {
  const texts = messages.map((m) => contentText(m.content));
  // A conversation's history (the router's parley:history block) holds earlier queries: their directives are not this one's.
  const userTexts = messages
    .filter((m) => m.role === 'user')
    .map((m) => contentText(m.content).replace(/<parley:history>[\s\S]*?<\/parley:history>/g, ' '));
  const lastUserText = userTexts.at(-1) ?? '';
  const queryBlock = block(texts, 'query');
  const roundText = block(texts, 'round');
  const round = roundText !== undefined && Number(roundText) > 0 ? Math.floor(Number(roundText)) : undefined;
  // Directives may sit in the user's query wherever the engine puts it (a block in a system message too).
  const directiveTexts = queryBlock !== undefined ? [...userTexts, queryBlock] : userTexts;
  return {
    query: stripDirectives(queryBlock ?? stripBlocks(lastUserText)),
    lastUserText,
    specialists: parseSpecialists(parseJson(block(texts, 'specialists'))),
    steps: parseSteps(parseJson(block(texts, 'steps'))),
    round,
    answers: candidates(texts) ?? parseAnswers(parseJson(block(texts, 'answers'))),
    directives: parseDirectives(directiveTexts, lastUserText, queryBlock),
    team: parseTeam(parseJson(block(texts, 'team'))),
    mode: block(texts, 'mode'),
    rubric: block(texts, 'rubric'),
    answer: block(texts, 'answer'),
    answerA: block(texts, 'answer_a'),
    answerB: block(texts, 'answer_b'),
    criteria: block(texts, 'criteria'),
  };
}

function parseTeam(raw: unknown): TeamInfo | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const t = raw as Record<string, unknown>;
  if (typeof t.agent !== 'string') return undefined;
  return {
    agent: t.agent,
    role: t.role === 'manager' ? 'manager' : 'worker',
    depth: Number(t.depth) || 0,
    maxDepth: Number(t.maxDepth) || 0,
    ...(typeof t.parent === 'string' ? { parent: t.parent } : {}),
    siblings: (Array.isArray(t.agents) ? (t.agents as Record<string, unknown>[]) : [])
      .filter((a) => a && typeof a.id === 'string' && a.parent === t.parent && a.id !== t.parent)
      .map((a) => a.id as string),
  };
}

/** Lower-case words of a text, for overlap scoring. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}
