/**
 * The checks of one case against what its run did (docs/evals.md): each passes or fails with a
 * sentence saying what was expected and what was found.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { GraphEvent, GraphEventOf, RunResult } from '../graph/contract.ts';
import type { Check } from './suite.ts';

export interface CheckResult {
  check: string;
  pass: boolean;
  detail: string;
}

/** What a case's checks read: its last run's events and result, the workspace, and the judge. */
export interface CaseRun {
  query: string;
  events: GraphEvent[];
  result: RunResult;
  workspace: string;
  judge(rubric: string): Promise<{ score: number; reason: string }>;
}

const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Every field of `expected` equals the call's (a subset match: a suite names the arguments that matter). */
function argsMatch(expected: Record<string, unknown>, actual: unknown): boolean {
  if (!actual || typeof actual !== 'object') return false;
  return Object.entries(expected).every(([k, v]) => isDeepStrictEqual((actual as Record<string, unknown>)[k], v));
}

export async function runCheck(check: Check, run: CaseRun): Promise<CheckResult> {
  const answer = run.result.answer ?? '';
  const usage = run.result.usage;
  if ('judge' in check) {
    const verdict = await run.judge(check.judge);
    return {
      check: `judge ≥ ${check.score}: ${clip(check.judge, 40)}`,
      pass: verdict.score >= check.score,
      detail: `judge scored ${verdict.score}: ${clip(verdict.reason, 160)}`,
    };
  }
  if ('file' in check) {
    const path = isAbsolute(check.file) ? check.file : join(run.workspace, check.file);
    const inside = !relative(resolve(run.workspace), resolve(path)).startsWith('..');
    if (!inside) return { check: `file ${check.file}`, pass: false, detail: 'the path is outside the workspace' };
    if (!existsSync(path)) return { check: `file ${check.file}`, pass: false, detail: 'no such file was written' };
    if (check.contains === undefined) return { check: `file ${check.file}`, pass: true, detail: 'written' };
    const text = readFileSync(path, 'utf8');
    return {
      check: `file ${check.file} contains "${clip(check.contains, 30)}"`,
      pass: text.includes(check.contains),
      detail: `the file holds "${clip(text)}"`,
    };
  }
  if ('tool' in check) {
    const calls = run.events.filter((e): e is GraphEventOf<'tool.started'> => e.type === 'tool.started');
    const named = calls.filter((c) => c.tool === check.tool);
    const pass = named.some((c) => !check.args || argsMatch(check.args, c.args));
    const label = `tool ${check.tool}${check.args ? ` with ${clip(JSON.stringify(check.args), 40)}` : ''}`;
    const detail = named.length
      ? `called with ${named.map((c) => clip(JSON.stringify(c.args), 80)).join('; ')}`
      : `not called (tools called: ${calls.map((c) => c.tool).join(', ') || 'none'})`;
    return { check: label, pass, detail };
  }
  if ('contains' in check)
    return {
      check: `answer contains "${clip(check.contains, 30)}"`,
      pass: answer.toLowerCase().includes(check.contains.toLowerCase()),
      detail: `the answer: "${clip(answer)}"`,
    };
  if ('matches' in check)
    return {
      check: `answer matches /${clip(check.matches, 30)}/`,
      pass: new RegExp(check.matches).test(answer),
      detail: `the answer: "${clip(answer)}"`,
    };
  if ('score' in check) {
    const verified = run.events.findLast((e): e is GraphEventOf<'verify.result'> => e.type === 'verify.result');
    return {
      check: `verifier score ≥ ${check.score}`,
      pass: verified !== undefined && verified.score >= check.score,
      detail: verified ? `scored ${verified.score}` : 'the run was not verified (no plan)',
    };
  }
  if ('calls' in check)
    return {
      check: `≤ ${check.calls} model calls`,
      pass: usage.modelCalls <= check.calls,
      detail: `${usage.modelCalls} calls`,
    };
  if ('tokens' in check) {
    const tokens = usage.inputTokens + usage.outputTokens;
    return { check: `≤ ${check.tokens} tokens`, pass: tokens <= check.tokens, detail: `${tokens} tokens` };
  }
  if ('cost' in check)
    return {
      check: `≤ $${check.cost}`,
      pass: usage.costUsd !== null && usage.costUsd <= check.cost,
      detail: usage.costUsd === null ? 'cost unknown (a model without a price)' : `$${usage.costUsd.toFixed(6)}`,
    };
  if ('status' in check)
    return {
      check: `status ${check.status}`,
      pass: run.result.status === check.status,
      detail: `${run.result.status}${run.result.error ? `: ${clip(run.result.error)}` : ''}`,
    };
  const route = run.events.findLast((e): e is GraphEventOf<'route.decided'> => e.type === 'route.decided');
  return {
    check: `route ${check.route}`,
    pass: route?.stage === check.route,
    detail: `routed ${route?.stage ?? 'nowhere'}`,
  };
}
