/**
 * A streamed completion as providers actually send it, over real HTTP on 127.0.0.1: a plain node:http
 * server writes the SSE body by script (events split across writes, several in one write, CRLF, an
 * error event mid-stream, a stall), and the model client reads it (src/llm/sse-chunks.ts).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createModelClient, ModelError, type StreamChunk } from '../../../src/llm/index.ts';

type Script = (res: ServerResponse) => Promise<void>;
let script: Script = async () => undefined;
let connections = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    void script(res);
  });
});
server.on('connection', () => connections++);
let baseUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const chunk = (content: string | null, finish: string | null = null, usage?: object) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'provider-model',
    choices: content === null && !finish ? [] : [{ index: 0, delta: { content }, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });
const tick = () => new Promise((r) => setTimeout(r, 5));

function client(env: Record<string, string> = {}) {
  const config = loadConfig({
    PARLEY_MODEL_BASE_URL: baseUrl,
    PARLEY_MODEL_API_KEY: 'k',
    PARLEY_MODEL: 'provider-model',
    PARLEY_MODEL_RETRY_BASE_MS: '1',
    PARLEY_MODEL_TIMEOUT_MS: '5000',
    ...env,
  });
  return createModelClient(config.model);
}

/** Resolves when the client has read a chunk with this text: a script that must keep two writes in two reads waits on it. */
const readers: { text: string; resolve: () => void }[] = [];
const readByClient = (text: string) => new Promise<void>((resolve) => readers.push({ text, resolve }));

async function collect(env?: Record<string, string>): Promise<{ chunks: StreamChunk[]; error?: unknown }> {
  const chunks: StreamChunk[] = [];
  try {
    for await (const c of client(env).stream({ role: 'synthesizer', messages: [{ role: 'user', content: 'hi' }] })) {
      chunks.push(c);
      for (const r of readers.filter((w) => w.text === c.text)) r.resolve();
    }
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

describe('a streamed completion read from the wire', () => {
  it('reads events split across writes, several in one write and CRLF line ends', async () => {
    const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
    const body = `data: ${chunk('Hello')}\n\ndata: ${chunk(', wo')}\r\n\r\ndata: ${chunk('rld')}\n\ndata: ${chunk(null, 'stop')}\n\ndata: ${chunk(null, null, usage)}\n\ndata: [DONE]\n\n`;
    script = async (res) => {
      // Cut at awkward places: inside "data:", inside the JSON, between \r and \n.
      const cuts = [3, 40, body.indexOf('\r\n') + 1, body.length - 9];
      let at = 0;
      for (const cut of cuts) {
        res.write(body.slice(at, cut));
        at = cut;
        await tick();
      }
      res.end(body.slice(at));
    };
    const { chunks, error } = await collect();
    expect(error).toBeUndefined();
    // Deltas parsed from one network read join into one (chat-stream.ts); however the cuts fall, the text is whole.
    expect(
      chunks
        .filter((c) => c.type === 'delta')
        .map((c) => c.text)
        .join(''),
    ).toBe('Hello, world');
    const done = chunks.at(-1)!;
    expect(done).toMatchObject({ type: 'done', text: 'Hello, world', finishReason: 'stop' });
    if (done.type === 'done') expect(done.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
  });

  it('ignores what follows [DONE], and streamed calls share one kept-alive connection', async () => {
    script = async (res) => {
      res.write(`data: ${chunk('one')}\n\ndata: ${chunk(null, 'stop')}\n\ndata: [DONE]\n\n`);
      await tick();
      res.end(`data: ${chunk('after done')}\n\n`);
    };
    const before = connections;
    for (let i = 0; i < 3; i++) {
      const { chunks, error } = await collect();
      expect(error).toBeUndefined();
      expect(chunks.at(-1)).toMatchObject({ type: 'done', text: 'one' });
    }
    expect(connections - before).toBe(1);
  });

  it('throws the error event a provider sends mid-stream, after the deltas already given', async () => {
    script = async (res) => {
      res.write(`data: ${chunk('partial ')}\n\ndata: ${chunk('answer')}\n\n`);
      await tick();
      res.end(`data: ${JSON.stringify({ error: { message: 'The model is overloaded', type: 'server_error' } })}\n\n`);
    };
    const { chunks, error } = await collect();
    expect(chunks).toEqual([{ type: 'delta', text: 'partial answer' }]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain('The model is overloaded');
  });

  it('joins the deltas of one network read into one, keeps reads apart, and keeps reasoning on its own', async () => {
    const reasoning = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'provider-model',
      choices: [{ index: 0, delta: { reasoning_content: 'thinking' }, finish_reason: null }],
    });
    script = async (res) => {
      res.write(`data: ${chunk('a')}\n\ndata: ${chunk('b')}\n\ndata: ${reasoning}\n\ndata: ${chunk('c')}\n\n`);
      // Each later write once the client has read the one before: under load two writes a few ms apart
      // arrive in one read, and are rightly joined (seen at load 9).
      await readByClient('c');
      res.write(`data: ${chunk('d')}\n\n`);
      await readByClient('d');
      res.end(`data: ${chunk('e')}\n\ndata: ${chunk(null, 'stop')}\n\ndata: [DONE]\n\n`);
    };
    const { chunks, error } = await collect();
    expect(error).toBeUndefined();
    expect(chunks.map((c) => `${c.type}:${c.text}`)).toEqual([
      'delta:ab',
      'reasoning:thinking',
      'delta:c',
      'delta:d',
      'delta:e',
      'done:abcde',
    ]);
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'stop' });
  });

  it('a stream that stalls after its first delta fails as a timeout, and the request is closed', async () => {
    let closed = false;
    script = async (res) => {
      res.on('close', () => (closed = true));
      res.write(`data: ${chunk('first')}\n\n`); // then nothing
    };
    const { chunks, error } = await collect({ PARLEY_MODEL_TIMEOUT_MS: '300' });
    expect(chunks.map((c) => c.type)).toEqual(['delta']);
    expect(error).toMatchObject({ kind: 'timeout' });
    await expect.poll(() => closed).toBe(true);
  });
});
