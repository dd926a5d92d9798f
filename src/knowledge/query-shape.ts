/**
 * The shape of a query as team reuse compares it: its mood (question or instruction) and its
 * significant words in order. Unlike the TeamConfig pattern (a bag of stems without stop words,
 * good for finding a candidate team), the shape keeps what changes the task: word order, the
 * words that give direction or relation ("from", "to", "into", "than", "without"…) and negation
 * ("not", "never", "don't", "no"). Only filler is dropped: articles, possessives, pronouns and
 * politeness, which never change what is asked.
 */
import { stem } from './words.ts';

export type Mood = 'question' | 'instruction';

export interface ShapeWord {
  /** The word as the query wrote it (case kept): what a reused objective is rewritten with. */
  surface: string;
  /** What two queries are compared by: the stem of a content word, the word itself otherwise. */
  key: string;
}

export interface QueryShape {
  mood: Mood;
  words: ShapeWord[];
}

/** Words that never change the task. Direction, relation, negation and modal words are NOT here. */
const FILLER = new Set(
  (
    'a an the this that these those our my your their its his her we i you us me them they it ' +
    'please kindly just of some'
  ).split(' '),
);

/** Kept as they are (never stemmed), so "no"/"not"/"nor" and "to"/"too" stay apart. */
export const NEGATIONS = new Set(['not', 'no', 'never', 'nor', 'none', 'nothing', 'neither', 'without', 'cannot']);

/** A query opening with one of these asks something rather than orders it. */
const QUESTION_OPENERS = new Set(
  (
    'should shall can could would will is are was were am does did have has had may might must ' +
    'what why how which who whom whose when where whether'
  ).split(' '),
);
/** "Do we…?" asks; "Do the migration" and "Do not…" order. */
const SUBJECTS = new Set(['i', 'we', 'you', 'they', 'it', 'he', 'she']);

function moodOf(text: string, lower: string[]): Mood {
  if (/\?\s*$/.test(text)) return 'question';
  const [first, second] = lower.filter((w) => w !== 'please' && w !== 'kindly');
  if (first === undefined) return 'instruction';
  if (QUESTION_OPENERS.has(first)) return 'question';
  return first === 'do' && second !== undefined && SUBJECTS.has(second) ? 'question' : 'instruction';
}

/** "don't" → "do not", "can't" → "can not", "won't" → "will not", "cannot" stays one word. */
function expandContractions(text: string): string {
  return text
    .replace(/[’‘]/g, "'")
    .replace(/\bwon't\b/gi, 'will not')
    .replace(/\bcan't\b/gi, 'can not')
    .replace(/n't\b/gi, ' not');
}

export function queryShape(query: string): QueryShape {
  const text = expandContractions(query.trim());
  const tokens = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  const lower = tokens.map((t) => t.toLowerCase());
  const mood = moodOf(text, lower);
  const words: ShapeWord[] = [];
  tokens.forEach((surface, i) => {
    const w = lower[i]!;
    if (FILLER.has(w)) return;
    words.push({ surface, key: NEGATIONS.has(w) ? w : stem(w) });
  });
  return { mood, words };
}

const negationsOf = (shape: QueryShape): string[] => shape.words.map((w) => w.key).filter((k) => NEGATIONS.has(k));

const keys = (shape: QueryShape) => shape.words.map((w) => w.key);

/** Words of `a` not in `b`, counting repeats. */
function missing(a: string[], b: string[]): string[] {
  const left = [...b];
  return a.filter((w) => {
    const i = left.indexOf(w);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

/** The first reason the two shapes are different tasks, or undefined when they are the same. */
export function shapeDifference(taught: QueryShape, asked: QueryShape): string | undefined {
  const article = (mood: string) => (mood === 'instruction' ? 'an instruction' : 'a question');
  if (taught.mood !== asked.mood) return `${article(asked.mood)} where the team was taught by ${article(taught.mood)}`;
  const [was, is] = [negationsOf(taught), negationsOf(asked)];
  if (was.join(' ') !== is.join(' ')) {
    const added = missing(is, was);
    const dropped = missing(was, is);
    return `negation differs (${[...added.map((w) => `"${w}" added`), ...dropped.map((w) => `"${w}" dropped`)].join(', ') || 'moved'})`;
  }
  const [a, b] = [keys(taught), keys(asked)];
  const added = missing(b, a);
  const dropped = missing(a, b);
  if (added.length || dropped.length) {
    const list = [...added.map((w) => `+${w}`), ...dropped.map((w) => `-${w}`)].join(' ');
    return `words differ (${list}): another entity, language or stack`;
  }
  if (a.join(' ') !== b.join(' ')) return 'the same words in another order (direction or roles may differ)';
  return undefined;
}

/** Whether two queries ask the same task (team reuse's rule). */
export const sameTask = (a: string, b: string): boolean => shapeDifference(queryShape(a), queryShape(b)) === undefined;
