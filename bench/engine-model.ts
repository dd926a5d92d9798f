/**
 * Child-process entry for bench/engine.ts: the scripted model in its own process (so its event loop
 * does not share the engine's), answering IPC questions about its request log.
 */
import { startScriptedModel } from '../src/scripted-model/index.ts';

const model = await startScriptedModel({ latencyMs: Number(process.env.ENGINE_BENCH_LATENCY_MS ?? '0') });

type Ask =
  | { id: number; cmd: 'calls'; runId: string }
  | { id: number; cmd: 'count'; schemaName?: string }
  | { id: number; cmd: 'clear' };

process.on('message', (msg: Ask) => {
  if (msg.cmd === 'calls') {
    const calls = model.requests
      .filter((r) => r.runId === msg.runId)
      .map((r) => ({ arrivedAt: r.arrivedAt, finishedAt: r.finishedAt ?? r.arrivedAt }));
    process.send!({ id: msg.id, calls });
  } else if (msg.cmd === 'count') {
    process.send!({
      id: msg.id,
      count: model.requests.filter((r) => msg.schemaName === undefined || r.schemaName === msg.schemaName).length,
    });
  } else {
    model.requests.length = 0;
    process.send!({ id: msg.id, count: 0 });
  }
});
process.on('disconnect', () => void model.close().then(() => process.exit(0)));
process.send!({ id: 0, url: model.url });
