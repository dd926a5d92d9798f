/**
 * The in-memory vector index of specialists: one unit vector per specialist id, tagged with the hash
 * of the text it was made from (and the model), so an unchanged specialist is never embedded again.
 */
import { createHash } from 'node:crypto';

export interface IndexedVector {
  hash: string;
  vector: Float32Array;
}

/** Hash of what a vector depends on: the embeddings model and the exact text embedded. */
export function contentHash(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

/** Dot product of two unit vectors: their cosine similarity. Different lengths (a changed model) score 0. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export class VectorIndex {
  readonly #entries = new Map<string, IndexedVector>();

  /** True when the id has a vector made from exactly this content. */
  has(id: string, hash: string): boolean {
    return this.#entries.get(id)?.hash === hash;
  }

  set(id: string, hash: string, vector: number[]): void {
    this.#entries.set(id, { hash, vector: Float32Array.from(vector) });
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The ids among `ids` with the highest cosine to `query` (> 0), best first. */
  nearest(query: Float32Array, ids: Iterable<string>, k: number): { id: string; cosine: number }[] {
    const scored: { id: string; cosine: number }[] = [];
    for (const id of ids) {
      const entry = this.#entries.get(id);
      if (!entry) continue;
      const c = cosine(query, entry.vector);
      if (c > 0) scored.push({ id, cosine: c });
    }
    return scored.sort((a, b) => b.cosine - a.cosine || a.id.localeCompare(b.id)).slice(0, k);
  }

  /** Cosine of one id's vector to the query (0 when it has none). */
  similarity(query: Float32Array, id: string): number {
    const entry = this.#entries.get(id);
    return entry ? Math.max(0, cosine(query, entry.vector)) : 0;
  }
}
