/**
 * Child-process entry: runs the scripted model (src/scripted-model) with a fixed latency in its own
 * process, so that on the 2-core machine the model server and the contender do not share an event
 * loop. The parent talks to it over IPC: read the request log since a mark, or clear it (so a long
 * benchmark does not hoard 100k request bodies).
 */
import { startScriptedModel } from '../../src/scripted-model/server.ts';
import type { LogEntry, ModelProcessReply, ModelProcessRequest } from './model-server.ts';

const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? '0');
const model = await startScriptedModel({ latencyMs });

function entries(from: number): LogEntry[] {
  return model.requests.slice(from).map((r) => ({
    arrivedAt: r.arrivedAt,
    finishedAt: r.finishedAt,
    role: r.role,
    runId: r.runId,
    status: r.status,
    aborted: r.aborted,
  }));
}

process.on('message', (msg: ModelProcessRequest) => {
  let reply: ModelProcessReply;
  if (msg.cmd === 'length') reply = { id: msg.id, length: model.requests.length };
  else if (msg.cmd === 'entries') reply = { id: msg.id, entries: entries(msg.from) };
  else {
    model.requests.length = 0;
    reply = { id: msg.id, length: 0 };
  }
  process.send!(reply);
});
process.on('disconnect', () => void model.close().then(() => process.exit(0)));
process.send!({ id: 0, url: model.url });
