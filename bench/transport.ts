/**
 * What one model call costs the caller before any framework runs: `node --expose-gc --import tsx bench/transport.ts`
 *
 * The floor of `npm run bench` is the openai SDK over Node's global fetch (undici). This splits that
 * floor into its layers, for the same chat completion against the scripted model in its own
 * process (so only the client's side is counted):
 * - `node:http`: a keep-alive http.request and JSON.parse, the least a Node client can do;
 * - `fetch`: Node's global fetch (undici), what the openai SDK sends through;
 * - `openai SDK`: client.chat.completions.create, as the floor and Parley call it.
 * Per layer: client CPU and wall per call, one call at a time (L = 0), and heap per in-flight call
 * with `--inflight` calls held open at L = 2 s (heap after GC while they wait, minus before).
 * Options: --calls 3000 (sequential), --inflight 2000, --trials 3.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { collect, sleep } from './lib/clock.ts';
import { startModelServer } from './lib/model-server.ts';
import { summarize, type Summary } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    inflight: { type: 'string', default: '2000' },
    trials: { type: 'string', default: '3' },
  },
});
const calls = Number(values.calls);
const inflight = Number(values.inflight);
const trials = Number(values.trials);

const model = await startModelServer(0);
const body = {
  model: 'scripted',
  messages: [{ role: 'user' as const, content: 'Say hello to the quarterly sales team [[route:direct]]' }],
};
const json = JSON.stringify(body);
const url = new URL(`${model.baseUrl}/chat/completions`);
const agent = new http.Agent({ keepAlive: true });
const sdk = new OpenAI({ apiKey: 'bench', baseURL: model.baseUrl, maxRetries: 0 });

type Call = () => Promise<unknown>;
const layers: Record<string, Call> = {
  'node:http': () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: 'Bearer bench' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(JSON.parse(text)));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(json);
    }),
  fetch: async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
      body: json,
    });
    return res.json();
  },
  'openai SDK': () => sdk.chat.completions.create(body),
};

async function sequential(call: Call): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await call();
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / calls, wallMs: (performance.now() - t0) / calls };
}

async function heldOpen(call: Call): Promise<number> {
  await model.setLatency(2000);
  await collect();
  const before = process.memoryUsage().heapUsed;
  const pending = Array.from({ length: inflight }, call);
  await sleep(1000);
  await collect();
  const during = process.memoryUsage().heapUsed;
  await Promise.all(pending);
  await model.setLatency(0);
  return (during - before) / inflight / 1024;
}

const rows: { layer: string; cpu: Summary; wall: Summary; heapKb: Summary }[] = [];
for (const [layer, call] of Object.entries(layers)) {
  for (let i = 0; i < 300; i++) await call(); // warm-up: JIT and pooled connections
  const cpu: number[] = [];
  const wall: number[] = [];
  const heap: number[] = [];
  for (let t = 0; t < trials; t++) {
    const s = await sequential(call);
    cpu.push(s.cpuMs);
    wall.push(s.wallMs);
    heap.push(await heldOpen(call));
    await model.clear();
  }
  rows.push({ layer, cpu: summarize(cpu), wall: summarize(wall), heapKb: summarize(heap) });
}
await model.close();
agent.destroy();

const fmt = (s: Summary, digits: number) =>
  `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}–${s.max.toFixed(digits)}]`;
console.log(
  `One model call, client side only (median [min–max] of ${trials} trials; ${calls} sequential calls, ${inflight} held open)`,
);
console.log(
  ['layer'.padEnd(12), 'CPU ms/call'.padEnd(22), 'wall ms/call'.padEnd(22), 'heap KB per in-flight call'].join('  '),
);
for (const r of rows)
  console.log([r.layer.padEnd(12), fmt(r.cpu, 3).padEnd(22), fmt(r.wall, 3).padEnd(22), fmt(r.heapKb, 1)].join('  '));
