/**
 * SpecialistDirectory: the available specialists, read from the store at most once per `ttlMs` and
 * shared by every run that starts meanwhile (one query instead of one per run, and one copy of the
 * records in memory instead of one per run). A registry change is seen within ttlMs.
 */
import type { KnowledgeStore, SpecialistRecord } from './store.ts';

export type SpecialistMap = ReadonlyMap<string, SpecialistRecord>;

export class SpecialistDirectory {
  readonly #store: KnowledgeStore;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #cached?: { at: number; map: Promise<SpecialistMap> };

  constructor(store: KnowledgeStore, options: { ttlMs?: number; now?: () => number } = {}) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  get(): Promise<SpecialistMap> {
    const now = this.#now();
    if (!this.#cached || now - this.#cached.at >= this.#ttlMs) {
      const map = this.#store.listSpecialists({ available: true }).then((list) => new Map(list.map((s) => [s.id, s])));
      this.#cached = { at: now, map };
      // A failed read is not cached: the next run asks the store again.
      map.catch(() => {
        if (this.#cached?.map === map) this.#cached = undefined;
      });
    }
    return this.#cached.map;
  }
}
