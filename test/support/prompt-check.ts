/**
 * Setup file of every test project (vitest.config.ts): the suite-wide prompt check. Every scripted
 * model a test starts runs with PARLEY_SCRIPTED_PROMPT_CHECK=1 (set in vitest.config.ts, inherited by
 * the Parley processes tests launch), so a request carrying `<PARLEY_…>`, `${…}` or an unrendered
 * `{{id.result}}` is answered 400 and recorded; here any test during which one was recorded fails,
 * even when the run tolerated the failed call (src/scripted-model/leftovers.ts).
 */
import { afterEach } from 'vitest';
import { promptLeftovers } from '../../src/scripted-model/leftovers.ts';

afterEach(() => {
  if (promptLeftovers.length === 0) return;
  const found = promptLeftovers.splice(0);
  const lines = found.map((f) => `- ${f.role ?? 'no role'} call of run ${f.runId ?? '?'}: ${f.found.join('; ')}`);
  throw new Error(`model requests carried unrendered placeholders:\n${lines.join('\n')}`);
});
