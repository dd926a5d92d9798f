/**
 * Parley's engine in-process: the workload's query with the scripted model's directives
 * ([[route:plan]] [[steps:N]]) in mode "orchestrate", read the way every adapter reads a run
 * (its GraphEvent stream, then the result).
 */
import type { GraphEvent } from '../../src/graph/run/events.ts';
import type { RunHandle } from '../../src/graph/contract.ts';
import type { Contender } from '../lib/contender.ts';
import { now } from '../lib/clock.ts';
import { workloadQuery, type RunOutcome, type StepOutput } from '../lib/workload.ts';
import { startPostgres } from '../../test/support/postgres.ts';
import { createBenchEngine } from './parley-engine.ts';

export interface ParleyVariant {
  knowledgeWrites: boolean;
  runRetentionMs?: number;
  /**
   * Runs and threads in a local Postgres started per instance (test/support/postgres.ts), as with
   * PARLEY_DATABASE_URL, instead of LMDB: the same backend as `langgraph-durable`.
   */
  postgres?: boolean;
}

/** Collects the answer, the step outputs (latest attempt per step, in plan order) and the score. */
export function outcomeFromEvents(events: GraphEvent[]): RunOutcome {
  let order: string[] = [];
  const steps = new Map<string, StepOutput>();
  let score = Number.NaN;
  let answer: string | undefined;
  let error: string | undefined;
  for (const e of events) {
    if (e.type === 'plan.ready') order = e.plan.steps.map((s) => s.id);
    else if (e.type === 'step.finished')
      steps.set(e.stepId, {
        id: e.stepId,
        specialist: e.specialist,
        status: e.status === 'succeeded' ? 'succeeded' : 'failed',
        output: e.output ?? e.error ?? '',
      });
    else if (e.type === 'verify.result') score = e.score;
    else if (e.type === 'run.finished') {
      if (e.status === 'completed') answer = e.answer ?? '';
      else error = `run ${e.status}: ${e.error ?? ''}`;
    }
  }
  if (answer === undefined) throw new Error(error ?? 'run ended without run.finished');
  return { answer, steps: order.map((id) => steps.get(id)!).filter(Boolean), score };
}

/** Reads the events to run.finished (the answer), then waits for the result (execution memory written). */
async function drain(handle: RunHandle, onFirst?: () => void): Promise<{ events: GraphEvent[]; answeredAt: number }> {
  const events: GraphEvent[] = [];
  for await (const e of handle.events()) {
    if (events.length === 0) onFirst?.();
    events.push(e);
  }
  const answeredAt = now();
  await handle.result;
  return { events, answeredAt };
}

export function parley(variant: ParleyVariant): Contender {
  const writes = variant.knowledgeWrites;
  return {
    name:
      variant.runRetentionMs !== undefined
        ? `parley-retain${variant.runRetentionMs / 1000}s`
        : variant.postgres
          ? 'parley-pg'
          : writes
            ? 'parley'
            : 'parley-nokg',
    description:
      (writes
        ? 'Parley engine in-process, knowledge-graph writes on (Kuzu on a database file in a temporary folder)'
        : 'Parley engine in-process, knowledge-graph writes off (no-op recordRun; registry reads on Kuzu)') +
      (variant.runRetentionMs !== undefined
        ? `, finished runs retained ${variant.runRetentionMs} ms instead of 10 min`
        : '') +
      (variant.postgres ? ', runs and threads in Postgres (PARLEY_DATABASE_URL; local Postgres 15)' : ''),
    // With writes on, a repeated query reuses the proven TeamConfig (router stage 1: no planning call).
    expectedModelCalls: (n) => (writes ? n + 2 : n + 3),
    criticalStages: writes ? 3 : 4,
    async create({ modelUrl }) {
      const server = variant.postgres ? await startPostgres() : undefined;
      const bench = await createBenchEngine({
        modelUrl,
        knowledgeWrites: writes,
        runRetentionMs: variant.runRetentionMs,
        ...(server ? { databaseUrl: server.url } : {}),
      }).catch(async (err: unknown) => {
        await server?.stop();
        throw err;
      });
      const start = (runId: string, fanOut: number) =>
        bench.engine.start({ runId, query: workloadQuery(fanOut), mode: 'orchestrate', protocol: 'bench' });
      return {
        async run(runId, fanOut) {
          const { events, answeredAt } = await drain(start(runId, fanOut));
          return { ...outcomeFromEvents(events), answeredAt };
        },
        async firstEvent(runId, fanOut) {
          const t0 = now();
          let first = Number.NaN;
          const { events } = await drain(start(runId, fanOut), () => (first = now() - t0));
          return { firstEventMs: first, outcome: outcomeFromEvents(events) };
        },
        ...(server ? { serverCpuMs: () => server.cpuMs() } : {}),
        async close() {
          try {
            await bench.close();
          } finally {
            await server?.stop();
          }
        },
      };
    },
  };
}
