/** The scripted model's POST /v1/embeddings and createEmbedder, through the openai SDK over real HTTP. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RoleModelConfig } from '../../../src/config.ts';
import { createEmbedder } from '../../../src/llm/embeddings.ts';
import { ModelError } from '../../../src/llm/errors.ts';
import { createPriceCatalog } from '../../../src/llm/prices.ts';
import { createLogger } from '../../../src/log.ts';
import { useScriptedModel } from '../../support/use-scripted-model.ts';

const scripted = useScriptedModel();
let openai: OpenAI;
let endpoint: RoleModelConfig;

beforeAll(() => {
  openai = new OpenAI({ baseURL: `${scripted.url}/v1`, apiKey: 'none', maxRetries: 0 });
  endpoint = { model: 'scripted', baseUrl: `${scripted.url}/v1`, apiKey: 'none', timeoutMs: 5000 };
});

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));

describe('scripted POST /v1/embeddings', () => {
  it('answers the OpenAI shape: one unit vector per input in order, usage, the model echoed, logged', async () => {
    const r = await openai.embeddings.create({
      model: 'emb-test',
      input: ['Builds Dockerfiles and CI pipelines', 'Writes release notes'],
      encoding_format: 'float',
    });
    expect(r.object).toBe('list');
    expect(r.model).toBe('emb-test');
    expect(r.data.map((d) => d.index)).toEqual([0, 1]);
    for (const d of r.data) {
      expect(d.object).toBe('embedding');
      expect(d.embedding).toHaveLength(512);
      expect(norm(d.embedding)).toBeCloseTo(1, 6);
    }
    expect(r.usage.prompt_tokens).toBeGreaterThan(0);
    expect(r.usage.total_tokens).toBe(r.usage.prompt_tokens);
    expect(scripted.requests).toHaveLength(1);
    expect(scripted.requests[0]).toMatchObject({
      endpoint: 'embeddings',
      model: 'emb-test',
      inputs: 2,
      status: 200,
      aborted: false,
    });
    const log = (await (await fetch(`${scripted.url}/_scripted/log`)).json()) as { endpoint: string }[];
    expect(log.map((e) => e.endpoint)).toEqual(['embeddings']);
  });

  it('is deterministic, honours dimensions, and the SDK default (base64) decodes to the same vector', async () => {
    const text = 'tune slow postgres queries';
    const [a, b] = await Promise.all([
      openai.embeddings.create({ model: 'e', input: text, encoding_format: 'float' }),
      openai.embeddings.create({ model: 'e', input: text }), // the SDK asks for base64 and decodes it
    ]);
    const float = a.data[0]!.embedding;
    const decoded = Array.from(b.data[0]!.embedding);
    expect(decoded).toHaveLength(float.length);
    decoded.forEach((x, i) => expect(x).toBeCloseTo(float[i]!, 6));
    const again = await openai.embeddings.create({ model: 'e', input: text, encoding_format: 'float' });
    expect(again.data[0]!.embedding).toEqual(float);
    const small = await openai.embeddings.create({ model: 'e', input: text, encoding_format: 'float', dimensions: 64 });
    expect(small.data[0]!.embedding).toHaveLength(64);
  });

  it('gives texts sharing words or word parts a higher cosine than unrelated texts', async () => {
    const r = await openai.embeddings.create({
      model: 'e',
      encoding_format: 'float',
      input: [
        'dockerize the service',
        'Builds and fixes CI/CD pipelines, Dockerfiles, Kubernetes manifests',
        'Writes and edits clear technical documentation, READMEs, guides',
      ],
    });
    const [query, devops, writer] = r.data.map((d) => d.embedding);
    expect(dot(query!, devops!)).toBeGreaterThan(dot(query!, writer!));
    const same = await openai.embeddings.create({
      model: 'e',
      encoding_format: 'float',
      input: ['postgres query tuning', 'tunes Postgres queries', 'edits release notes'],
    });
    const [q, db, notes] = same.data.map((d) => d.embedding);
    expect(dot(q!, db!)).toBeGreaterThan(0.3);
    expect(dot(q!, db!)).toBeGreaterThan(dot(q!, notes!) + 0.3);
  });

  it('rejects bad input with a 400 in OpenAI error shape and logs nothing', async () => {
    for (const body of [
      { model: 'e' },
      { model: 'e', input: '' },
      { model: 'e', input: [] },
      { model: 'e', input: [1, 2] },
      { model: 'e', input: 'x', dimensions: 0 },
    ]) {
      const res = await fetch(`${scripted.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { error: { message: string; type: string } };
      expect(err.error.type).toBe('invalid_request_error');
      expect(err.error.message).toMatch(/input|dimensions/);
    }
    const notJson = await fetch(`${scripted.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(scripted.requests).toHaveLength(0);
  });

  it('fails by scripted rules matching the role header or the inputs, not by directives in the text', async () => {
    scripted.setFaults([
      { role: 'embeddings', fault: '500' },
      { contains: 'rate me', fault: '429' },
    ]);
    const sdk = (role?: string) =>
      openai.embeddings.create(
        { model: 'e', input: ['rate me please'], encoding_format: 'float' },
        role ? { headers: { 'x-parley-role': role } } : {},
      );
    await expect(sdk('embeddings')).rejects.toMatchObject({ status: 500 });
    await expect(sdk()).rejects.toMatchObject({ status: 429 });
    const ok = await openai.embeddings.create({ model: 'e', input: 'hello [[fault:500]]', encoding_format: 'float' });
    expect(ok.data).toHaveLength(1);
    expect(scripted.requests.map((r) => [r.fault, r.status])).toEqual([
      ['500', 500],
      ['429', 429],
      [undefined, 200],
    ]);
  });
});

describe('createEmbedder', () => {
  it('embeds in batches, keeps the order, and adds up usage and cost', async () => {
    const prices = createPriceCatalog({ 'emb-priced': { input: 0.02, output: 0 } });
    const embedder = createEmbedder(endpoint, 'emb-priced', { batchSize: 4, prices });
    const texts = Array.from(
      { length: 10 },
      (_, i) => `specialist number ${i} writes ${['sql', 'docs', 'tests'][i % 3]}`,
    );
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(10);
    const batches = scripted.requests.filter((r) => r.endpoint === 'embeddings');
    expect(batches.map((r) => r.inputs)).toEqual([4, 4, 2]);
    expect(batches.every((r) => r.role === 'embeddings' && r.model === 'emb-priced')).toBe(true);
    // Same vectors one by one: batching changes nothing, and order is kept.
    const single = await embedder.embed([texts[7]!]);
    expect(single[0]).toEqual(vectors[7]);
    vectors.forEach((v) => expect(norm(v)).toBeCloseTo(1, 6));
    const usage = embedder.usage();
    expect(usage.calls).toBe(4);
    expect(usage.inputs).toBe(11);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.costUsd).toBeCloseTo((usage.inputTokens * 0.02) / 1_000_000, 12);

    const unpriced = createEmbedder(endpoint, 'not-in-catalog', { prices });
    await unpriced.embed(['x y z']);
    expect(unpriced.usage().costUsd).toBeNull();
  });

  it('retries a 500 like a chat call and gives up with a ModelError after its retries', async () => {
    const lines: string[] = [];
    const embedder = createEmbedder(endpoint, 'e', {
      retry: { maxRetries: 2, baseMs: 5 },
      logger: createLogger('warn', (l) => lines.push(l)),
    });
    scripted.setFaults([{ role: 'embeddings', fault: '500', times: 1 }]);
    expect(await embedder.embed(['recovers'])).toHaveLength(1);
    expect(scripted.requests.map((r) => r.status)).toEqual([500, 200]);
    expect(lines.some((l) => l.includes('embeddings call failed, retrying'))).toBe(true);

    scripted.requests.length = 0;
    scripted.setFaults([{ role: 'embeddings', fault: '500', times: 5 }]);
    const err = await embedder.embed(['fails']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: 'server', status: 500, attempts: 3 });
    expect(scripted.requests).toHaveLength(3);
  });

  it('treats a malformed answer as a server fault (retried), and a 400 as final', async () => {
    const embedder = createEmbedder(endpoint, 'e', { retry: { maxRetries: 1, baseMs: 5 } });
    scripted.setFaults([{ role: 'embeddings', fault: 'schema', times: 1 }]);
    expect(await embedder.embed(['after a bad answer'])).toHaveLength(1);
    expect(scripted.requests.map((r) => r.fault)).toEqual(['schema', undefined]);

    scripted.requests.length = 0;
    const err = await embedder.embed(['']).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(scripted.requests).toHaveLength(0); // rejected before it was logged
  });

  it('stops when the caller aborts', async () => {
    const embedder = createEmbedder(endpoint, 'e', { retry: { maxRetries: 0, baseMs: 5 } });
    scripted.setFaults([{ role: 'embeddings', fault: 'hang' }]);
    const controller = new AbortController();
    const pending = embedder.embed(['waits'], controller.signal).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'aborted' });
  });
});
