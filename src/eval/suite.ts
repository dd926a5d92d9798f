/**
 * An evaluation suite (docs/evals.md): cases — a query, a mode, earlier turns on its thread — each with
 * checks on what the run did. Read from YAML with the `yaml` package and checked with zod, so a
 * mistake in the file is one clear line naming the field, before anything runs.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { RUN_MODES } from '../graph/contract.ts';

const atMost = z.number().nonnegative();

export const CheckSchema = z.union([
  z.strictObject({ contains: z.string().min(1) }).describe('the answer contains this text (case-insensitive)'),
  z.strictObject({ matches: z.string().min(1) }).describe('the answer matches this regular expression'),
  z.strictObject({
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).optional(),
  }),
  z.strictObject({ file: z.string().min(1), contains: z.string().optional() }),
  z.strictObject({ score: z.number().min(0).max(1) }).describe('the last verifier score is at least this'),
  z.strictObject({ calls: atMost }).describe('at most this many model calls'),
  z.strictObject({ tokens: atMost }).describe('at most this many input + output tokens'),
  z.strictObject({ cost: atMost }).describe('at most this cost in USD'),
  z.strictObject({ status: z.enum(['completed', 'failed', 'cancelled', 'blocked']) }),
  z.strictObject({ route: z.string().min(1) }).describe('the route decided (direct, llm_plan, council, dynamic, …)'),
  z.strictObject({ judge: z.string().min(1), score: z.number().min(0).max(1).default(0.7) }),
]);
export type Check = z.infer<typeof CheckSchema>;

const CHECK_KINDS =
  'not a check: write one of { contains }, { matches }, { tool, args? }, { file, contains? }, { score }, { calls }, ' +
  '{ tokens }, { cost }, { status }, { route }, { judge, score? } (docs/evals.md)';

export const CaseSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'case ids are letters, digits, _, . and -'),
  query: z.string().min(1),
  mode: z.enum(RUN_MODES).optional(),
  /** Earlier turns asked on the same thread first (each a query), so the case is a follow-up. */
  thread: z.array(z.string().min(1)).max(20).optional(),
  checks: z.array(CheckSchema).default([]),
});
export type EvalCase = z.infer<typeof CaseSchema>;

export const SuiteSchema = z.strictObject({
  name: z.string().min(1),
  /** How many cases run at once (default 4). */
  concurrency: z.number().int().min(1).max(32).default(4),
  /** What the suite answers when a tool call needs a human: accept (default) or deny. */
  approvals: z.enum(['accept', 'deny']).default('accept'),
  cases: z.array(CaseSchema).min(1).max(1000),
});
export type Suite = z.infer<typeof SuiteSchema>;

export class SuiteError extends Error {
  override name = 'SuiteError';
}

export function parseSuite(text: string, source: string): Suite {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new SuiteError(`${source}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = SuiteSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.map(String).join('.') || '(top level)';
    // A check matching none of the kinds: zod says only "Invalid input"; say what a check may be.
    const message = issue.code === 'invalid_union' && issue.path.at(-2) === 'checks' ? CHECK_KINDS : issue.message;
    throw new SuiteError(`${source}: ${at}: ${message}`);
  }
  const ids = new Set<string>();
  for (const c of parsed.data.cases) {
    if (ids.has(c.id)) throw new SuiteError(`${source}: case id "${c.id}" is used more than once`);
    ids.add(c.id);
    for (const check of c.checks)
      if ('matches' in check) {
        try {
          new RegExp(check.matches);
        } catch (err) {
          throw new SuiteError(`${source}: case "${c.id}": matches: ${(err as Error).message}`);
        }
      }
  }
  return parsed.data;
}

export function loadSuite(path: string): Suite {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SuiteError(`cannot read the suite ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseSuite(text, path);
}
