/**
 * The prompt check (docs/scripted-model.md "Prompt check"): no model request may carry an unrendered
 * placeholder — `<PARLEY_…>` (a description with its path not filled in), `${…}` (a template or env
 * variable never expanded), or `{{id.result}}` (a step result never inlined; the planner alone may
 * see that syntax, which its instructions teach). With the check on (PARLEY_SCRIPTED_PROMPT_CHECK=1,
 * as every test run sets it) the scripted model answers such a request 400 and records it in
 * `promptLeftovers`, which the test suite's setup fails on after each test.
 */

/** One request that carried a leftover. */
export interface PromptLeftover {
  role?: string;
  runId?: string;
  /** Each leftover found, with a little text around it. */
  found: string[];
}

/** Every leftover this process's scripted models met since the list was last emptied (tests read and empty it). */
export const promptLeftovers: PromptLeftover[] = [];

const ALWAYS = [/<PARLEY_[A-Z_]*>?/g, /\$\{[^}]{0,80}\}?/g];
const RESULT_REF = /\{\{\s*[A-Za-z0-9_-]+\.result\s*\}\}/g;

/** Whether the check is on: the option, else PARLEY_SCRIPTED_PROMPT_CHECK=1. */
export const promptCheckOn = (option: boolean | undefined): boolean =>
  option ?? process.env.PARLEY_SCRIPTED_PROMPT_CHECK === '1';

/** The leftovers in a request body (its whole JSON: messages, tool descriptions, schemas), with context. */
export function findLeftovers(body: unknown, role: string | undefined): string[] {
  const text = JSON.stringify(body) ?? '';
  const patterns = role === 'planner' ? ALWAYS : [...ALWAYS, RESULT_REF];
  const found: string[] = [];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) {
      const at = m.index;
      found.push(`${m[0]} in "…${text.slice(Math.max(0, at - 60), at + m[0].length + 40)}…"`);
    }
  }
  return found;
}
