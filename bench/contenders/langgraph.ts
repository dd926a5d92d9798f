/**
 * LangGraph.js, written the way its docs teach map-reduce: a StateGraph whose router fans out
 * with Send, a reducer channel that joins the specialists' results, and a conditional edge after
 * the verifier (synthesize, or send the failed steps back). No checkpointer: the leanest setup.
 */
import { Annotation, END, Send, START, StateGraph } from '@langchain/langgraph';
import type { PlanStep } from '../../src/graph/planning/graph-plan.ts';
import type { Contender } from '../lib/contender.ts';
import {
  ACCEPT_SCORE,
  CRITICAL_STAGES,
  MAX_ROUNDS,
  createModelClient,
  expectedModelCalls,
  planSteps,
  runStep,
  synthesize,
  verify,
  workloadQuery,
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

function buildGraph(modelUrl: string) {
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
    .compile();
}

export const langgraph: Contender = {
  name: 'langgraph',
  description: '@langchain/langgraph StateGraph: Send fan-out, reducer join, conditional verifier edge',
  expectedModelCalls,
  criticalStages: CRITICAL_STAGES,
  async create({ modelUrl }) {
    const graph = buildGraph(modelUrl);
    return {
      async run(runId, fanOut) {
        const out = await graph.invoke({ runId, query: workloadQuery(fanOut) }, { recursionLimit: 50 });
        return { answer: out.answer, steps: out.steps, score: out.verification.score };
      },
      async close() {},
    };
  },
};
