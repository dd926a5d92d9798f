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
