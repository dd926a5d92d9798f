/**
 * The repeated-task workload of bench/learning.ts: task families, each a query and paraphrases of
 * it. A paraphrase here is what a person retyping the same request changes: case, punctuation,
 * articles and possessives, "please", the inflection of a verb. Paraphrases that move words
 * around are near misses by design (bench/learning/near-misses.json, "reordered"): stage 1 plans
 * them anew, and they would only lower the measured saving.
 */
export interface TaskFamily {
  name: string;
  /** The first is the query that teaches the team; the others are asked later. */
  queries: [string, ...string[]];
}

export const FAMILIES: TaskFamily[] = [
  {
    name: 'port',
    queries: [
      'Port our billing service from Python to TypeScript',
      'port the billing service from Python to TypeScript.',
      'Please port our billing service from python to typescript',
      'Porting the billing service from Python to TypeScript!',
    ],
  },
  {
    name: 'tests',
    queries: [
      'Write unit tests for the invoice module',
      'Write the unit tests for our invoice module.',
      'please write unit tests for the invoice module',
      'Writing unit tests for the Invoice module',
    ],
  },
  {
    name: 'security review',
    queries: [
      'Review the security of the login endpoint',
      'Review security of our login endpoint.',
      'Please review the security of the login endpoint',
      'Reviewing the security of the Login endpoint!',
    ],
  },
  {
    name: 'incident summary',
    queries: [
      'Summarise the incident report for the March outage',
      'summarise the incident report for our March outage.',
      'Please summarise the incident report for the March outage',
      'Summarise incident report for the March outage!',
    ],
  },
  {
    name: 'containerise',
    queries: [
      'Containerise the API with Docker',
      'containerise our API with Docker.',
      'Please containerise the API with docker',
      'Containerise the API with Docker!',
    ],
  },
  {
    name: 'api docs',
    queries: [
      'Document the public API of the payments client',
      'Document the public API of our payments client.',
      'Please document the public API of the payments client',
      'document public API of the payments client!',
    ],
  },
];

/**
 * The run order: `rounds` rounds, each asking every family once in a shuffled (seeded) order. Round
 * 1 asks each family's first query (the warm-up: nothing is proven yet); later rounds alternate
 * exact repeats of it and its paraphrases.
 */
export function workload(rounds: number, seed = 1): { round: number; family: string; query: string; exact: boolean }[] {
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const runs: { round: number; family: string; query: string; exact: boolean }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = FAMILIES.map((f) => ({ f, key: random() }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.f);
    for (const family of order) {
      // Odd later rounds repeat the first query exactly; even ones cycle through the paraphrases.
      const i = round === 1 || round % 2 === 1 ? 0 : 1 + ((round / 2 - 1) % (family.queries.length - 1));
      runs.push({ round, family: family.name, query: family.queries[i]!, exact: i === 0 });
    }
  }
  return runs;
}
