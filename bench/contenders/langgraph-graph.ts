/**
 * The workload as LangGraph.js, written the way its docs teach map-reduce: a StateGraph whose router
 * fans out with Send, a reducer channel that joins the specialists' results, and a conditional edge
 * after the verifier (synthesize, or send the failed steps back). Shared by the `langgraph` contender
 * (no checkpointer) and `langgraph-durable` (a Postgres checkpointer), so both run the same graph.
 */
import { Annotation, END, Send, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import type { PlanStep } from '../../src/graph/planning/graph-plan.ts';
import {
  ACCEPT_SCORE,
  MAX_ROUNDS,
  createModelClient,
  planSteps,
  runStep,
  synthesize,
  verify,
  type RunOutcome,
  type StepOutput,
  type Verification,
} from '../lib/workload.ts';

const State = Annotation.Root({
  runId: Annotation<string>(),
  query: Annotation<string>(),
  plan: Annotation<PlanStep[]>(),
  /** Reducer join: every specialist appends its result; the latest result per step id wins. */
  results: Annotation<StepOutput[]>({ reducer: (all, more) => all.concat(more), default: () => [] }),
  steps: Annotation<StepOutput[]>(),
  round: Annotation<number>(),
  verification: Annotation<Verification>(),
  answer: Annotation<string>(),
});
type S = typeof State.State;

interface SpecialistTask {
  runId: string;
  query: string;
  step: PlanStep;
}

/** The compiled graph; with a checkpointer, every superstep is saved to it under the run's thread_id. */
export function buildWorkloadGraph(modelUrl: string, checkpointer?: BaseCheckpointSaver) {
  const client = createModelClient(modelUrl);
  return new StateGraph(State)
    .addNode('router', async (s: S) => ({ plan: await planSteps(client, s.runId, s.query), round: 1 }))
    .addNode('specialist', async (task: SpecialistTask) => ({
      results: [await runStep(client, task.runId, task.query, task.step)],
    }))
    .addNode('join', (s: S) => {
      const latest = new Map(s.results.map((r) => [r.id, r]));
      return { steps: s.plan.map((p) => latest.get(p.id)!) };
    })
    .addNode('verifier', async (s: S) => ({ verification: await verify(client, s.runId, s.query, s.steps, s.round) }))
    .addNode('retry', (s: S) => ({ round: s.round + 1 }))
    .addNode('synthesizer', async (s: S) => ({ answer: await synthesize(client, s.runId, s.query, s.steps) }))
    .addEdge(START, 'router')
    .addConditionalEdges(
      'router',
      (s: S) => s.plan.map((step) => new Send('specialist', { runId: s.runId, query: s.query, step })),
      ['specialist'],
    )
    .addEdge('specialist', 'join')
    .addEdge('join', 'verifier')
    .addConditionalEdges(
      'verifier',
      (s: S) => (s.verification.score >= ACCEPT_SCORE || s.round >= MAX_ROUNDS ? 'synthesizer' : 'retry'),
      ['synthesizer', 'retry'],
    )
    .addConditionalEdges(
      'retry',
      (s: S) => {
        const failed = new Set(s.verification.failedStepIds);
        return s.plan
          .filter((p) => failed.has(p.id))
          .map((step) => new Send('specialist', { runId: s.runId, query: s.query, step }));
      },
      ['specialist'],
    )
    .addEdge('synthesizer', END)
    .compile(checkpointer ? { checkpointer } : {});
}

/** What a finished run hands the harness. */
export function outcomeOf(out: S): RunOutcome {
  return { answer: out.answer, steps: out.steps, score: out.verification.score };
}
