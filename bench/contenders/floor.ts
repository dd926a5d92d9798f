/**
 * The floor: the workload with no framework at all, plain Promise.all over the openai SDK.
 * Whatever time a framework adds on top of this is orchestration overhead.
 */
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
} from '../lib/workload.ts';

export const floor: Contender = {
  name: 'floor',
  description: 'Promise.all + openai SDK, no framework',
  expectedModelCalls,
  criticalStages: CRITICAL_STAGES,
  async create({ modelUrl }) {
    const client = createModelClient(modelUrl);
    return {
      async run(runId, fanOut) {
        const query = workloadQuery(fanOut);
        const plan = await planSteps(client, runId, query);
        let steps: StepOutput[] = await Promise.all(plan.map((step) => runStep(client, runId, query, step)));
        let verification = await verify(client, runId, query, steps, 1);
        for (let round = 2; verification.score < ACCEPT_SCORE && round <= MAX_ROUNDS; round++) {
          const failed = new Set(verification.failedStepIds);
          const redone = await Promise.all(
            plan.filter((s) => failed.has(s.id)).map((s) => runStep(client, runId, query, s)),
          );
          steps = steps.map((s) => redone.find((r) => r.id === s.id) ?? s);
          verification = await verify(client, runId, query, steps, round);
        }
        const answer = await synthesize(client, runId, query, steps);
        return { answer, steps, score: verification.score };
      },
      async close() {},
    };
  },
};
