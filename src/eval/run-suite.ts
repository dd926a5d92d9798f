/**
 * Runs an evaluation suite through the engine (docs/evals.md): every case as ordinary runs — its
 * thread's earlier turns first, then its query — at most `concurrency` cases at once, each repeated
 * `repeat` times; tool calls that need a human are answered by the suite's approval policy.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalPort } from '../hitl/types.ts';
import type { ModelClient } from '../llm/types.ts';
import {
  LOCAL_CALLER,
  todayNote,
  type Caller,
  type GraphEvent,
  type RunEngine,
  type RunResult,
  type UsageTotals,
} from '../graph/contract.ts';
import { runCheck, type CheckResult } from './checks.ts';
import { judge } from './judge.ts';
import type { EvalCase, Suite } from './suite.ts';
import { versusDirect, type VersusOutcome } from './versus.ts';

export interface EvalDeps {
  engine: RunEngine;
  approvals: ApprovalPort;
  model: ModelClient;
  /** The folder `{workspace}` stands for in a case, and where `file` checks look. */
  workspace: string;
  caller?: Caller;
  /** The zone of the date the judge is told (PARLEY_TIMEZONE; default UTC). */
  timeZone?: string;
  /** The clock that date comes from (default Date.now). */
  now?: () => number;
}

export interface CaseOutcome {
  id: string;
  /** 1-based repetition. */
  repeat: number;
  pass: boolean;
  runId: string;
  status: RunResult['status'];
  checks: CheckResult[];
  /** The run's own usage: what `calls`, `tokens` and `cost` checks compare. */
  usage: UsageTotals;
  /** The judge's calls for this case's `judge` checks (docs/evals.md): spent by the evaluation, not the run. */
  judgeUsage: JudgeUsage;
  durationMs: number;
  /** `--versus direct`: the same question in one direct call of the same model, and the pairwise judge's verdict (versus.ts). */
  versus?: VersusOutcome;
}

/** What the judge calls of one case spent; costUsd null when the judge model has no price. */
export interface JudgeUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

const noJudgeUsage = (): JudgeUsage => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/** The case with `{workspace}` replaced everywhere (query, turns, check arguments). */
function placed(c: EvalCase, workspace: string): EvalCase {
  const path = JSON.stringify(workspace).slice(1, -1);
  return JSON.parse(JSON.stringify(c).replaceAll('{workspace}', path)) as EvalCase;
}

/** One run to its end, its approvals answered by the policy; its events and result. */
async function runOnce(
  deps: EvalDeps,
  query: string,
  threadId: string,
  c: EvalCase,
  policy: 'accept' | 'deny',
): Promise<{ events: GraphEvent[]; result: RunResult }> {
  const caller = deps.caller ?? LOCAL_CALLER;
  const handle = deps.engine.start({
    query,
    threadId,
    ...(c.mode ? { mode: c.mode } : {}),
    caller,
    protocol: 'cli',
  });
  const events: GraphEvent[] = [];
  for await (const e of handle.events()) {
    events.push(e);
    if (e.type !== 'approval.requested') continue;
    const request = e.request;
    const decision: ApprovalDecision =
      request.kind === 'tool'
        ? {
            kind: 'tool',
            decisions: Object.fromEntries(request.toolCalls.map((t) => [t.toolCallId, { type: policy }])),
            ...(policy === 'deny' ? { feedback: 'denied by the evaluation suite policy' } : {}),
          }
        : { kind: 'elicitation', action: policy === 'accept' ? 'accept' : 'decline' };
    await deps.approvals.resolve(request.id, decision, 'eval', caller);
  }
  return { events, result: await handle.result };
}

async function runCase(
  deps: EvalDeps,
  suite: Suite,
  raw: EvalCase,
  repeat: number,
  versus: boolean,
): Promise<CaseOutcome> {
  const c = placed(raw, deps.workspace);
  const threadId = `eval-${randomUUID()}`;
  const earlier: { user: string; answer: string }[] = [];
  for (const turn of c.thread ?? []) {
    const { result } = await runOnce(deps, turn, threadId, c, suite.approvals);
    earlier.push({ user: turn, answer: result.answer ?? '' });
  }
  const { events, result } = await runOnce(deps, c.query, threadId, c, suite.approvals);
  const today = todayNote((deps.now ?? Date.now)(), deps.timeZone ?? 'UTC');
  const judgeUsage = noJudgeUsage();
  const run = {
    query: c.query,
    events,
    result,
    workspace: deps.workspace,
    judge: async (rubric: string) => {
      // A failed call still counts as a call; its tokens and cost are unknown to us, so none are added.
      judgeUsage.calls += 1;
      try {
        const verdict = await judge(deps.model, {
          query: c.query,
          answer: result.answer ?? '',
          rubric,
          runId: result.runId,
          ...(c.thread?.length ? { earlierTurns: c.thread } : {}),
          today,
        });
        judgeUsage.inputTokens += verdict.usage.inputTokens;
        judgeUsage.outputTokens += verdict.usage.outputTokens;
        judgeUsage.costUsd =
          judgeUsage.costUsd === null || verdict.usage.costUsd === null
            ? null
            : judgeUsage.costUsd + verdict.usage.costUsd;
        return verdict;
      } catch (err) {
        return { score: 0, reason: `the judge call failed: ${(err as Error).message}` };
      }
    },
  };
  // A case passes only with a completed run, unless it says which ending it expects.
  const checks = c.checks.some((k) => 'status' in k) ? c.checks : [{ status: 'completed' as const }, ...c.checks];
  const results: CheckResult[] = [];
  for (const check of checks) results.push(await runCheck(check, run));
  const compared = versus
    ? await versusDirect(deps.model, {
        query: c.query,
        earlier,
        graphAnswer: result.answer ?? '',
        criteria: c.checks.flatMap((k) => ('judge' in k ? [k.judge] : [])),
        runId: result.runId,
        today,
      })
    : undefined;
  return {
    id: c.id,
    repeat,
    pass: results.every((r) => r.pass),
    runId: result.runId,
    status: result.status,
    checks: results,
    usage: result.usage,
    judgeUsage,
    durationMs: result.durationMs,
    ...(compared ? { versus: compared } : {}),
  };
}

/** Every case `repeat` times, at most suite.concurrency at once; outcomes in suite order. */
export async function runSuite(
  suite: Suite,
  deps: EvalDeps,
  options: { repeat?: number; onOutcome?: (o: CaseOutcome) => void; versus?: 'direct' } = {},
): Promise<CaseOutcome[]> {
  const repeat = options.repeat ?? 1;
  const jobs = suite.cases.flatMap((c) => Array.from({ length: repeat }, (_, i) => ({ c, repeat: i + 1 })));
  const outcomes: CaseOutcome[] = new Array<CaseOutcome>(jobs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const job = jobs[i]!;
      const outcome = await runCase(deps, suite, job.c, job.repeat, options.versus === 'direct');
      outcomes[i] = outcome;
      options.onOutcome?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(suite.concurrency, jobs.length) }, worker));
  return outcomes;
}
