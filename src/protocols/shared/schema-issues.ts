/**
 * A schema's complaint about a request, as one plain sentence naming the field: the first issue,
 * "params.cursor: Invalid input: expected string, received array", plus how many more there are.
 * Works on Standard Schema issues (zod's own, and the MCP SDK's published validators).
 */

interface Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

function where(path: Issue['path']): string {
  let out = '';
  for (const step of path ?? []) {
    const key = typeof step === 'object' ? step.key : step;
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || 'params';
}

/** "Invalid input: expected string, received undefined" says the field is missing. */
const MISSING = /^Invalid input: expected (.+), received undefined$/;

function describe(issue: Issue): string {
  const missing = MISSING.exec(issue.message);
  return `${where(issue.path)}: ${missing ? `is required (${missing[1]})` : issue.message}`;
}

export function issuesSentence(issues: readonly Issue[]): string {
  const [first, ...rest] = issues;
  if (!first) return 'params: Invalid input';
  return `${describe(first)}${rest.length ? ` (and ${rest.length} more)` : ''}`.replace(/\s+/g, ' ');
}
