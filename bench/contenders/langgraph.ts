/** LangGraph.js with no checkpointer: the leanest setup (the graph: langgraph-graph.ts). */
import type { Contender } from '../lib/contender.ts';
import { CRITICAL_STAGES, expectedModelCalls, workloadQuery } from '../lib/workload.ts';
import { buildWorkloadGraph, outcomeOf } from './langgraph-graph.ts';

export const langgraph: Contender = {
  name: 'langgraph',
  description: '@langchain/langgraph StateGraph: Send fan-out, reducer join, conditional verifier edge',
  expectedModelCalls,
  criticalStages: CRITICAL_STAGES,
  async create({ modelUrl }) {
    const graph = buildWorkloadGraph(modelUrl);
    return {
      async run(runId, fanOut) {
        return outcomeOf(await graph.invoke({ runId, query: workloadQuery(fanOut) }, { recursionLimit: 50 }));
      },
      async close() {},
    };
  },
};
