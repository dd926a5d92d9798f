/** The specialist a spawned worker gets when its spawner names none: the available one sharing the most words with its task. */
import type { SpecialistRecord } from '../../knowledge/store.ts';
import type { RunState } from '../run/state.ts';

const wordsOf = (text: string): Set<string> => new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);

export function pickSpecialist(run: RunState, task: string): SpecialistRecord | undefined {
  // The router's candidates first (ranked for the query), then the rest of the registry.
  const pool = [...run.candidates.map((c) => c.specialist), ...run.specialists.values()].filter((s) => s.available);
  const wanted = wordsOf(task);
  let best: { specialist: SpecialistRecord; score: number } | undefined;
  for (const specialist of pool) {
    const own = wordsOf(`${specialist.id} ${specialist.description} ${specialist.domains.join(' ')}`);
    let score = 0;
    for (const w of wanted) if (own.has(w) || own.has(w.replace(/s$/, ''))) score++;
    if (!best || score > best.score) best = { specialist, score };
  }
  return best?.specialist;
}
