/** One cycle of a directed graph, as the ids on it in order (the first not repeated), or undefined. */
export function findCycle(ids: Iterable<string>, edges: (id: string) => Iterable<string>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return path.slice(path.indexOf(id));
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges(id)) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}
