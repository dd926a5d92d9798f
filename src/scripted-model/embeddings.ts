/**
 * The scripted model's embeddings: a deterministic feature-hashing vectoriser, so tests can reason
 * about similarity. Each word (lowercased, stop words dropped) adds its crude stem and its character
 * trigrams ("^do", "doc", … "er$", together of unit length), so "dockerize" and
 * "Dockerfiles" meet even though a word-level full-text index keeps them apart. Every feature is
 * hashed to one of `dimensions` buckets with a hashed sign (so unrelated texts average a cosine of
 * 0, not a positive baseline), and the vector is L2-normalised. Synonyms share nothing: this is
 * lexical similarity, not meaning — enough to test retrieval plumbing, not to judge a real model.
 */
import { createHash } from 'node:crypto';

/** 512: with 256 buckets, hash collisions between unrelated words were as large as a shared word (tried on the roster). */
export const DEFAULT_DIMENSIONS = 512;

const STOP_WORDS = new Set(
  'a an and are as at be by can could do does for from how i in into is it its me my of on or our please should so that the their them then there these this to us was we what when where which who why will with would you your'.split(
    ' ',
  ),
);

/** Crude suffix stripping, the same idea as the registry's: "migrations"/"migrate" meet. */
function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ed', 'es', 's']) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix))
      return word.slice(0, -suffix.length) + (suffix === 'ies' ? 'y' : '');
  }
  return word;
}

/** Weighted features of a text: per word, its stem (weight 1) and its trigrams (together of unit length, so a near-miss word counts about half a trigram match). */
export function features(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const add = (feature: string, weight: number) => out.set(feature, (out.get(feature) ?? 0) + weight);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP_WORDS.has(word)) continue;
    add(`w:${stem(word)}`, 1);
    const padded = `^${word}$`;
    const trigrams = padded.length - 2;
    for (let i = 0; i < trigrams; i++) add(`g:${padded.slice(i, i + 3)}`, 1 / Math.sqrt(trigrams));
  }
  return out;
}

/** Bucket and sign of a feature, from its SHA-1 (stable across runs and machines). */
function bucketOf(feature: string, dimensions: number): { index: number; sign: 1 | -1 } {
  const digest = createHash('sha1').update(feature).digest();
  return { index: digest.readUInt32BE(0) % dimensions, sign: digest[4]! & 1 ? 1 : -1 };
}

/** The embedding of one text: `dimensions` floats, unit length (all zeros for a text with no words). */
export function embedText(text: string, dimensions = DEFAULT_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const [feature, weight] of features(text)) {
    const { index, sign } = bucketOf(feature, dimensions);
    vector[index]! += sign * weight;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((x) => x / norm);
}

/** OpenAI's base64 encoding_format: the float32 little-endian bytes of the vector. */
export function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

export interface EmbeddingsRequest {
  input?: unknown;
  model?: unknown;
  encoding_format?: unknown;
  dimensions?: unknown;
}

/** The inputs of a request, or a message saying what is wrong (answered as a 400). */
export function embeddingInputs(body: EmbeddingsRequest): string[] | string {
  const input = body.input;
  if (typeof input === 'string') return input === '' ? '`input` must not be an empty string.' : [input];
  if (!Array.isArray(input) || input.length === 0)
    return '`input` must be a non-empty string or a non-empty array of strings.';
  if (input.length > 2048) return '`input` may hold at most 2048 items.';
  if (!input.every((x): x is string => typeof x === 'string' && x !== '')) {
    return '`input` items must be non-empty strings (token arrays are not supported by the scripted model).';
  }
  return input;
}

export function embeddingDimensions(body: EmbeddingsRequest): number | string {
  if (body.dimensions === undefined) return DEFAULT_DIMENSIONS;
  const d = body.dimensions;
  return typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 4096
    ? d
    : '`dimensions` must be an integer from 1 to 4096.';
}
