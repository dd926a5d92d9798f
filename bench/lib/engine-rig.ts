/**
 * What the engine benchmarks share: the scripted model in its own process (bench/engine-model.ts), an
 * engine over the repo's specialists with Kuzu in memory and no tools, and the union of call intervals.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { Engine } from '../../src/graph/engine.ts';
import { ApprovalBroker } from '../../src/hitl/approvals.ts';
import { openKuzuStore } from '../../src/knowledge/kuzu/store.ts';
import { createModelClient, pointAtScriptedModel } from '../../src/llm/index.ts';
import type { ToolHost } from '../../src/tools/types.ts';
import { ingestAll } from '../../src/knowledge/ingest/ingest.ts';
import type { ModelClient } from '../../src/llm/types.ts';

export interface ModelProcess {
  url: string;
  calls(runId: string): Promise<{ arrivedAt: number; finishedAt: number }[]>;
  count(schemaName?: string): Promise<number>;
  clear(): Promise<void>;
  close(): Promise<void>;
}

export async function startModel(latencyMs: number): Promise<ModelProcess> {
  const child = fork(fileURLToPath(new URL('../engine-model.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ENGINE_BENCH_LATENCY_MS: String(latencyMs) },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  child.on('message', (reply: { id: number }) => {
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  let next = 1;
  const ask = <T>(msg: Record<string, unknown>, key: string) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, (r) => resolve(r[key] as T));
      child.send({ ...msg, id });
    });
  const url = await new Promise<string>((resolve) => waiting.set(0, (r) => resolve(r.url as string)));
  return {
    url,
    calls: (runId) => ask({ cmd: 'calls', runId }, 'calls'),
    count: (schemaName) => ask({ cmd: 'count', schemaName }, 'count'),
    clear: () => ask({ cmd: 'clear' }, 'count'),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

const noTools: ToolHost = {
  listTools: async () => [],
  getTool: async () => undefined,
  callTool: async () => ({ ok: false, text: '', full: null, error: 'no tools' }),
  close: async () => {},
};

export async function buildEngine(modelUrl: string, inProcess?: ModelClient) {
  const base = loadConfig({ PARLEY_DATA_DIR: ':memory:', PARLEY_LOG_LEVEL: 'silent' });
  const config = {
    ...base,
    budget: { ...base.budget, caller: { ...base.budget.caller, runsPerMinute: 1_000_000, tokens: 1e12, costUsd: 1e9 } },
  };
  config.model = pointAtScriptedModel({ ...config.model, maxRetries: 0 }, modelUrl);
  const model = inProcess ?? createModelClient(config.model);
  const store = await openKuzuStore({ path: ':memory:' });
  await ingestAll({ store, skillsDirs: [fileURLToPath(new URL('../../specialists', import.meta.url))], a2aPeers: [] });
  const approvals = new ApprovalBroker({ timeoutMs: config.approvals.timeoutMs, defaultDecision: 'deny' });
  const engine = new Engine({ model, store, tools: noTools, approvals, config });
  return { engine, store };
}

/** Total length of the union of intervals. */
export function unionMs(intervals: { arrivedAt: number; finishedAt: number }[]): number {
  const sorted = [...intervals].sort((a, b) => a.arrivedAt - b.arrivedAt);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const i of sorted) {
    if (i.arrivedAt > end) {
      if (end > start) total += end - start;
      start = i.arrivedAt;
      end = i.finishedAt;
    } else end = Math.max(end, i.finishedAt);
  }
  if (end > start) total += end - start;
  return total;
}
