/**
 * Word helpers shared by the registry, the query shape and the text index: how a query becomes the
 * words it is matched on. Their own module so that nothing that needs a word imports the registry.
 */

const STOP_WORDS = new Set(
  (
    'a an and are as at be by can could do does for from how i in into is it its me my of on or our please ' +
    'should so that the their them then there these this to us was we what when where which who why will ' +
    'with would you your'
  ).split(' '),
);

/** Crude suffix stripping: enough that "migrations"/"migrate" and "tests"/"testing" meet. */
export function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ed', 'es', 's']) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      const base = word.slice(0, -suffix.length);
      return suffix === 'ies' ? base + 'y' : base;
    }
  }
  return word;
}

/**
 * A word's search term: its stem without a final silent e, so "write" meets "writes" and "writing", and
 * "rebalance" meets "rebalancing". The in-memory searches (text-index.ts, memory-relevance.ts) use it;
 * team patterns keep the plain stem, as stored patterns were made with it.
 */
export function searchTerm(word: string): string {
  const s = stem(word);
  return s.length > 3 && s.endsWith('e') ? s.slice(0, -1) : s;
}

/** Weight of a word of every topic, against 1 for a topical one. */
const COMMON_WEIGHT = 0.25;

/**
 * Words that show up in requests of every topic (task verbs and nouns, and the function words of the
 * languages STOP_WORDS does not cover): they say little about what a request is about.
 */
const COMMON = new Set(
  // Task verbs and nouns of every topic.
  (
    'write create make build add give show tell explain describe list summarize summary compare comparison ' +
    'short brief simple quick new good best better use using help need want get find file files document ' +
    'text example examples way ways step steps thing things idea ideas about some any all more most other ' +
    'one two three each every also just like only very well now today work look set up put keep ' +
    // Function words of the languages the stop list (English) does not cover.
    'der die das und ist ein eine einen einem ich wie was für mit nicht zu den dem des auf im bitte ' +
    'le la les et est un une des du pour avec pas que qui dans sur en au aux ce cette ' +
    'el los las y es una por con para del lo en al se como'
  )
    .split(' ')
    .map(searchTerm),
);

/** How much a search term says about a topic: a quarter for a word of every topic, else 1. */
export const topicWeight = (term: string) => (COMMON.has(term) ? COMMON_WEIGHT : 1);

/** Lowercase word tokens without stop words. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

/** The TeamConfig pattern of a query: sorted unique stems, space-separated. */
export function queryPattern(query: string): string {
  return [...new Set(tokenize(query).map(stem))].sort().join(' ');
}

export function jaccard(a: string, b: string): number {
  const x = new Set(a.split(' ').filter(Boolean));
  const y = new Set(b.split(' ').filter(Boolean));
  if (x.size === 0 && y.size === 0) return 0;
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  return both / (x.size + y.size - both);
}
