/**
 * CPU to decode one streamed chat completion: `npx tsx bench/sse-decode.ts [--chunks 300] [--rounds 300]`.
 * The same SSE body (word-sized `chat.completion.chunk` events, one network read each, then `[DONE]`) read
 * by the openai SDK's `Stream` and by Parley's reader (src/llm/sse-chunks.ts, eventsource-parser), in turns
 * after a warm-up; prints CPU per stream and per chunk. The figure behind sse-chunks.ts's header.
 */
import { parseArgs } from 'node:util';
import { Stream } from 'openai/core/streaming';
import { sseChunks } from '../src/llm/sse-chunks.ts';

const { values } = parseArgs({
  options: { chunks: { type: 'string', default: '300' }, rounds: { type: 'string', default: '300' } },
});
const CHUNKS = Number(values.chunks);
const ROUNDS = Number(values.rounds);

const encoder = new TextEncoder();
const pieces: Uint8Array[] = [];
for (let i = 0; i < CHUNKS; i++) {
  const chunk = {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'scripted',
    choices: [{ index: 0, delta: { content: `word${i} ` }, finish_reason: null }],
  };
  pieces.push(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
}
pieces.push(encoder.encode('data: [DONE]\n\n'));
const response = () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    }),
  );

type Chunk = { choices: unknown[] };
const readers: Record<string, () => Promise<number>> = {
  'openai SDK Stream': async () => {
    let n = 0;
    for await (const chunk of Stream.fromSSEResponse<Chunk>(response(), new AbortController()))
      n += chunk.choices.length;
    return n;
  },
  'sse-chunks.ts': async () => {
    let n = 0;
    const chunks = sseChunks<Chunk>(response());
    for (let r = await chunks.next(); !r.done; r = await chunks.next()) n += r.value.choices.length;
    return n;
  },
};

for (let turn = 0; turn < 2; turn++)
  for (const [name, read] of Object.entries(readers)) {
    for (let i = 0; i < 50; i++) if ((await read()) !== CHUNKS) throw new Error(`${name} lost chunks`);
    const start = process.cpuUsage();
    for (let i = 0; i < ROUNDS; i++) await read();
    const used = process.cpuUsage(start);
    const ms = (used.user + used.system) / 1000 / ROUNDS;
    console.log(
      `${name.padEnd(18)} ${ms.toFixed(3)} ms per ${CHUNKS}-chunk stream, ${((ms * 1000) / CHUNKS).toFixed(1)} µs per chunk`,
    );
  }
