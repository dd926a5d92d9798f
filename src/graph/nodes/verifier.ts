/**
 * verifier: scores the plan's results (schemaName `verification`). ≥ 0.7 → synthesizer;
 * 0.4–0.7 → dispatcher re-runs only the failed steps (and what they block) with the feedback;
 * < 0.4 → planner re-plans. At most config.engine.maxVerifyRounds verifications: on the last one
 * a low score synthesizes the best result so far and says verification did not pass.
 */
import { block, stepsBlock } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { VerificationSchema } from '../prompting/schemas.ts';
import { emit, PASS_SCORE, type EngineContext, type NodeRun, type RunState, type Verification } from '../run/state.ts';
import type { Decision, Next } from '../run/edges.ts';
import { BudgetExceededError } from '../spending/usage.ts';
import type { StepOutcome } from '../planning/scheduler.ts';
import { historyNote } from '../threads/thread-history.ts';
import { userContent } from '../prompting/user-content.ts';
import { fitStepOutputs } from '../prompting/context-budget.ts';
import { teamOf } from '../dynamic/team.ts';
import { delegationLines } from '../dynamic/delegation.ts';

export const RETRY_SCORE = 0.4;

/** Every field of the `verification` schema and every block of the request is explained here. */
const VERIFIER_SYSTEM = `You are Parley's verifier. Judge whether the step results answer the query.
The request holds the parley:query block (the user's question), the parley:steps block (each step's "id", the "specialist" that ran it,
its "status": "succeeded", "failed", "skipped" or "cancelled", its "output", or its error when it did not succeed, and its "toolCalls":
every tool call the step made, in order, as the engine recorded it: "tool" (server/tool), "status": "ok" (it ran), "error" (it failed)
or "denied" (a human or the approval timeout refused it, so it did not run), and "targets" when the call's arguments named files or
web addresses (the paths and URLs it read or wrote, as the step passed them); [] when the step called no tool),
and the parley:round block (this verification's number, 1 for the first; a later round judges steps re-run after earlier feedback).
The output is the step's own report; the tool calls are the evidence of what it did. A step that reports a change (a file
written, something sent) without a matching "ok" call of a tool that does it has not shown it: treat the claim as unproven.
Answer with:
- "score": 0..1. 1 = the results fully and correctly answer the query; 0.7 or more passes and the answer is written from
  them; 0.4 to 0.7 re-runs the steps you name; below 0.4 plans the work again.
- "feedback": concrete notes on what is missing or wrong, and what to do about it. When the results pass, only the
  caveats the final answer must mention (the writer of the answer reads them), or "" when there are none.
- "failedStepIds": the ids (from the parley:steps block) of the steps whose results are failed, wrong or insufficient; [] when none.`;

export async function verifier(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'verifier'>>> {
  const plan = run.plan!;
  const outcomes = plan.steps.map((s) => run.results.get(s.id)).filter((o) => o !== undefined);
  const carried = takeCarriedVerification(run, outcomes);
  if (carried) return carried;
  // A carried verification not taken (a step ran again) is dropped with this round's update.
  const dropCarried = run.carriedVerification ? { carriedVerification: undefined } : {};
  const round = run.verifyRound + 1;
  let value: { score: number; feedback: string; failedStepIds: string[] };
  try {
    value = await askVerifier(run, ctx, outcomes, round);
  } catch (err) {
    // Cancellation and budgets end the run; a failing verifier model only costs the verification.
    if (run.abort.signal.aborted || err instanceof BudgetExceededError) throw err;
    ctx.logger.warn('verifier failed; answering unverified', { runId: run.id, error: (err as Error).message });
    return {
      next: 'synthesizer',
      update: {
        ...dropCarried,
        verifyRound: round,
        exhausted: `verification could not run (${(err as Error).message})`,
      },
    };
  }
  const ids = new Set(plan.steps.map((s) => s.id));
  // The verifier's own list, plus any step that did not succeed: it has to be re-run either way.
  const failed = new Set(value.failedStepIds.filter((id) => ids.has(id)));
  for (const o of outcomes) if (o.status !== 'succeeded') failed.add(o.stepId);
  const verification: Verification = {
    round,
    score: value.score,
    feedback: value.feedback,
    failedStepIds: [...failed],
  };
  const best =
    !run.best || verification.score > run.best.verification.score
      ? { verification, plan, results: new Map(run.results) }
      : run.best;
  // Whatever comes next, this round is counted and judged.
  const judged = { verifyRound: round, verification, best, ...dropCarried };

  const next =
    value.score >= PASS_SCORE
      ? 'synthesize'
      : round >= ctx.config.engine.maxVerifyRounds
        ? 'exhausted'
        : value.score >= RETRY_SCORE
          ? 'retry_failed'
          : 'replan';
  emit(run, {
    type: 'verify.result',
    round,
    score: value.score,
    feedback: value.feedback,
    failedStepIds: verification.failedStepIds,
    next,
  });

  if (next === 'synthesize') return { next: 'synthesizer', update: judged };
  if (next === 'exhausted') {
    const exhausted = `verification did not pass: best score ${best.verification.score.toFixed(2)} after ${round} round${round === 1 ? '' : 's'} (needs ${PASS_SCORE})`;
    return { next: 'synthesizer', update: { ...judged, exhausted } };
  }
  if (next === 'replan') return { next: 'planner', update: judged };
  // A dynamic team re-runs a spawned step through the planned step it grew from (dynamic/team.ts).
  const team = teamOf(run);
  const rerun = team ? team.rerunRoots(failed.size ? failed : ids) : failed.size ? failed : ids;
  const pending = rerunSet(plan.steps, rerun);
  return { next: 'dispatcher', update: { ...judged, feedback: value.feedback, pending } };
}

/**
 * A fork that carried every step of a verified plan (timetravel/fork-request.ts) has nothing new to
 * verify: the parent's passing verification stands, once, and only while every step's result is still
 * a carried success (a step run again, or a re-plan, is verified by the model as usual).
 */
function takeCarriedVerification(run: NodeRun, outcomes: StepOutcome[]): Decision<Next<'verifier'>> | undefined {
  const carried = run.carriedVerification;
  if (!carried) return undefined;
  const plan = run.plan!;
  const allCarried =
    outcomes.length === plan.steps.length &&
    outcomes.every((o) => o.status === 'succeeded' && carried.outputs.get(o.stepId) === o.output);
  if (!allCarried) return undefined;
  const { fromRunId, outputs: _outputs, ...verification } = carried;
  emit(run, {
    type: 'verify.result',
    round: verification.round,
    score: verification.score,
    feedback: verification.feedback,
    failedStepIds: verification.failedStepIds,
    next: 'synthesize',
    carriedFrom: fromRunId,
  });
  return {
    next: 'synthesizer',
    update: {
      carriedVerification: undefined,
      verifyRound: verification.round,
      verification,
      best: { verification, plan, results: new Map(run.results) },
    },
  };
}

/** What the verifier is told of a dynamic team's parley:delegation block, when there is one. */
const DELEGATION_NOTE = `
The steps are the agents of a team: the parley:delegation block says, one line per agent, who gave it its part, the task,
the tools it called and how it ended, and whose results the manager built its answer from. Judge the answer against
that work: a part no agent did, or a claim no agent's result supports, is missing.`;

async function askVerifier(run: RunState, ctx: EngineContext, outcomes: StepOutcome[], round: number) {
  const delegation = teamOf(run) ? delegationLines(run.plan!, run.results) : [];
  const system =
    VERIFIER_SYSTEM + (delegation.length ? DELEGATION_NOTE : '') + historyNote(run.history) + todayNoteOf(ctx);
  const fitted = await fitStepOutputs(run, ctx, { role: 'verifier' }, [system, run.request.query], outcomes);
  const { value } = await run.model.structured({
    role: 'verifier',
    schemaName: 'verification',
    schema: VerificationSchema,
    messages: [
      { role: 'system', content: system },
      {
        role: 'user',
        content: userContent(
          run,
          ctx,
          'verifier',
          [
            block('query', run.request.query),
            stepsBlock(outcomes, fitted, true),
            delegation.length ? block('delegation', delegation.join('\n')) : '',
            block('round', String(round)),
          ]
            .filter(Boolean)
            .join('\n\n'),
        ),
      },
    ],
    signal: run.abort.signal,
  });
  return value;
}

/** The failed steps plus every step that (transitively) depends on one of them. */
function rerunSet(steps: { id: string; dependsOn: string[] }[], failed: Set<string>): Set<string> {
  const out = new Set(failed);
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of steps) {
      if (!out.has(s.id) && s.dependsOn.some((d) => out.has(d))) {
        out.add(s.id);
        grew = true;
      }
    }
  }
  return out;
}
