/**
 * LangGraph.js made durable the way its docs teach: the same graph as `langgraph`
 * (langgraph-graph.ts) compiled with the official Postgres checkpointer
 * (@langchain/langgraph-checkpoint-postgres, PostgresSaver over `pg`, its default pool of 10), every
 * run on a thread of its own, `durability: "sync"`: each superstep's checkpoint is committed before
 * the next superstep starts, so nothing a caller was told is lost when the process is killed — the
 * promise Parley's run store makes (docs/durability.md). LangGraph's default, "async", writes the
 * checkpoint while the next superstep already runs; "exit" only at the end.
 *
 * Postgres is a real local server, started per instance as the tests start it
 * (test/support/postgres.ts: fsync off, synchronous_commit off: a commit survives this process's
 * kill -9, not the server's crash). process.cpuUsage sees this process only: what the server spends
 * is reported apart (serverCpuMs, bench/run-cpu.ts).
 */
import { randomUUID } from 'node:crypto';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Contender } from '../lib/contender.ts';
import { CRITICAL_STAGES, expectedModelCalls, workloadQuery } from '../lib/workload.ts';
import { startPostgres } from '../../test/support/postgres.ts';
import { buildWorkloadGraph, outcomeOf } from './langgraph-graph.ts';

export const langgraphDurable: Contender = {
  name: 'langgraph-durable',
  description:
    '@langchain/langgraph StateGraph as `langgraph`, with PostgresSaver (local Postgres 15), durability "sync", a thread per run',
  expectedModelCalls,
  criticalStages: CRITICAL_STAGES,
  async create({ modelUrl }) {
    const server = await startPostgres();
    let saver: PostgresSaver | undefined;
    try {
      saver = PostgresSaver.fromConnString(server.url);
      await saver.setup();
    } catch (err) {
      await saver?.end().catch(() => undefined);
      await server.stop();
      throw err;
    }
    const checkpointer = saver;
    const graph = buildWorkloadGraph(modelUrl, checkpointer);
    return {
      async run(runId, fanOut) {
        const out = await graph.invoke(
          { runId, query: workloadQuery(fanOut) },
          { recursionLimit: 50, durability: 'sync', configurable: { thread_id: randomUUID() } },
        );
        return outcomeOf(out);
      },
      serverCpuMs: () => server.cpuMs(),
      async close() {
        try {
          await checkpointer.end();
        } finally {
          await server.stop();
        }
      },
    };
  },
};
