/** The OpenAI-compatible endpoint driven by the official openai SDK, against the real engine over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { GraphEvent } from '../../../../src/graph/run/events.ts';
import { ASKER, NOTE_QUERY, startRig, until, type Rig } from '../../../support/protocols/agui-rig.ts';
import { NOTER } from '../../../support/protocols/a2a-helpers.ts';
import { READ_QUERY, READER, STANDUP_REFERENCE, STANDUP_SOURCE } from '../../../support/protocols/citing.ts';
import { expectNumbered, expectUncited } from '../../../support/protocols/citing-expect.ts';
import { expectAdvice, expectVerdictData } from '../../../support/council-answer.ts';

let rig: Rig;
let client: OpenAI;
beforeAll(async () => {
  rig = await startRig({ specialists: [NOTER, ASKER, READER] });
  client = new OpenAI({ baseURL: `${rig.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => {
  await rig?.close();
});

const mode = (m: string) => ({ headers: { 'X-Routing-Mode': m } });
type ParleyChunk = OpenAI.Chat.Completions.ChatCompletionChunk & { parley?: GraphEvent | { runId: string } };

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const chunks: ParleyChunk[] = [];
  for await (const c of stream) chunks.push(c);
  const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  return { chunks, content };
}

describe('GET /v1/models', () => {
  it('lists the Parley models and the upstream model', async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'parley',
        'parley-orchestration',
        'parley-council',
        rig.parley.config.model.roles.default.model,
      ]),
    );
  });
});

describe('POST /v1/chat/completions, non-streaming', () => {
  it.each([
    ['auto', 'hello there', 'direct'],
    ['orchestration', 'Analyse the sales data trends and write a report about them', 'llm_plan'],
    ['council', 'Should we migrate our database to Postgres this quarter?', 'council'],
  ])('%s: answers with the run answer, usage and X-Parley-Run-Id', async (routing, question, stage) => {
    const { data, response } = await client.chat.completions
      .create(
        {
          model: 'parley',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: question },
          ],
        },
        mode(routing),
      )
      .withResponse();
    const runId = response.headers.get('x-parley-run-id')!;
    const result = await rig.parley.engine.get(runId)!.result;
    expect(result.status).toBe('completed');
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.content).toBe(result.answer);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({
      prompt_tokens: result.usage.inputTokens,
      completion_tokens: result.usage.outputTokens,
    });
    const events = [];
    for await (const e of rig.parley.engine.get(runId)!.events()) events.push(e);
    const route = events.find((e) => e.type === 'route.decided');
    expect(route).toMatchObject({ stage });
    if (routing === 'council') expectAdvice(data.choices[0]!.message.content ?? undefined);
  });

  it('passthrough: the configured model answers directly, with no run', async () => {
    const before = rig.parley.engine.retainedRuns;
    const { data, response } = await client.chat.completions
      .create(
        { model: 'parley', messages: [{ role: 'user', content: 'Say hi to the passthrough' }] },
        mode('passthrough'),
      )
      .withResponse();
    expect(response.headers.get('x-routing-mode')).toBe('passthrough');
    expect(response.headers.get('x-parley-run-id')).toBeNull();
    expect(data.model).toBe(rig.parley.config.model.roles.default.model);
    expect(data.choices[0]!.message.content).toContain('passthrough');
    expect(rig.parley.engine.retainedRuns).toBe(before);
  });
});

describe('POST /v1/chat/completions, streaming', () => {
  it.each(['auto', 'orchestration', 'council'])(
    '%s: content deltas, progress in the parley field, usage last',
    async (routing) => {
      const question =
        routing === 'council'
          ? 'Should we hire two more engineers?'
          : 'Analyse the sales data trends and write a report about them';
      const { data: stream, response } = await client.chat.completions
        .create(
          {
            model: 'parley',
            messages: [{ role: 'user', content: question }],
            stream: true,
            stream_options: { include_usage: true },
          },
          mode(routing),
        )
        .withResponse();
      const runId = response.headers.get('x-parley-run-id')!;
      const { chunks, content } = await collect(stream);
      const result = await rig.parley.engine.get(runId)!.result;
      expect(content).toBe(result.answer);
      expect(chunks.every((c) => c.id === `chatcmpl-${runId}`)).toBe(true);
      expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
      const progress = chunks.map((c) => c.parley).filter((p): p is GraphEvent => !!p && 'type' in p);
      expect(progress.map((p) => p.type)).toContain('node.started');
      expect(progress.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
      const stop = chunks.find((c) => c.choices[0]?.finish_reason === 'stop');
      expect(stop).toBeDefined();
      const last = chunks.at(-1)!;
      expect(last.choices).toEqual([]);
      expect(last.usage).toMatchObject({
        prompt_tokens: result.usage.inputTokens,
        completion_tokens: result.usage.outputTokens,
      });
      if (routing === 'council') {
        // The content is the advice; the verdict, with its confidence, travels in the progress field.
        expectAdvice(content);
        const stage = progress.find((p) => p.type === 'council.stage' && p.stage === 'verdict');
        expectVerdictData(stage?.type === 'council.stage' ? stage.verdict : undefined);
      }
    },
  );

  it('passthrough streams the upstream chunks unchanged', async () => {
    const stream = await client.chat.completions.create(
      {
        model: 'parley',
        messages: [{ role: 'user', content: 'Stream through please' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      mode('passthrough'),
    );
    const { chunks, content } = await collect(stream);
    expect(content).toContain('Stream through please');
    expect(chunks.some((c) => c.parley)).toBe(false);
    expect(chunks.at(-1)!.usage?.total_tokens).toBeGreaterThan(0);
  });
});

describe('tools and response_format always pass through', () => {
  it('a request with tools gets the upstream tool call, even when orchestration is asked for', async () => {
    const before = rig.parley.scripted.requests.length;
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const { data, response } = await client.chat.completions
      .create(
        {
          model: 'parley',
          messages: [{ role: 'user', content: 'Use get_weather for Paris [[tool:get_weather {"city":"Paris"}]]' }],
          tools,
        },
        mode('orchestration'),
      )
      .withResponse();
    expect(response.headers.get('x-routing-mode')).toBe('passthrough');
    const call = data.choices[0]!.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    // Exactly one upstream call, carrying the client's tools as sent.
    const seen = rig.parley.scripted.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.role).toBeUndefined(); // no Parley role header: not a Parley model call
    expect((seen[0]!.body as { tools: unknown }).tools).toEqual(tools);
  });

  it('response_format json_schema is answered by the upstream with matching JSON', async () => {
    const before = rig.parley.scripted.requests.length;
    const data = await client.chat.completions.create({
      model: 'parley',
      messages: [{ role: 'user', content: 'Give me a colour' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'colour',
          schema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
    });
    const parsed = JSON.parse(data.choices[0]!.message.content!) as { name: unknown };
    expect(typeof parsed.name).toBe('string');
    const seen = rig.parley.scripted.requests.slice(before);
    expect(seen.map((r) => r.schemaName)).toEqual(['colour']);
  });
});

describe('errors in OpenAI shape', () => {
  it('a bad X-Routing-Mode is a 400 BadRequestError naming the header', async () => {
    const err = await client.chat.completions
      .create({ model: 'parley', messages: [{ role: 'user', content: 'hi' }] }, mode('telepathy'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('X-Routing-Mode');
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).type).toBe('invalid_request_error');
  });

  it('a malformed request is a 400 naming the param, and starts no run', async () => {
    const before = rig.parley.engine.retainedRuns;
    const res = await fetch(`${rig.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'parley', messages: [] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: 'messages', code: 'invalid_request' },
    });
    const noUser = await client.chat.completions
      .create({ model: 'parley', messages: [{ role: 'system', content: 'only system' }] })
      .catch((e: unknown) => e);
    expect(noUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect(rig.parley.engine.retainedRuns).toBe(before);
  });

  it('a failed run is a 500 server_error; streamed, the SDK raises it mid-stream', async () => {
    const failing = {
      model: 'parley',
      messages: [{ role: 'user' as const, content: 'Analyse the numbers [[route:direct]] [[fault:500]]' }],
    };
    const err = await client.chat.completions.create(failing, mode('auto')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('run_failed');

    const stream = await client.chat.completions.create({ ...failing, stream: true }, mode('auto'));
    await expect(collect(stream)).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('an upstream error in passthrough comes back with the upstream status', async () => {
    const err = await client.chat.completions
      .create({ model: 'parley', messages: [{ role: 'user', content: 'rate me [[fault:429]]' }] }, mode('passthrough'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe('disconnect', () => {
  it('a streaming client that goes away cancels its run', async () => {
    const abort = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'parley',
          messages: [{ role: 'user', content: NOTE_QUERY.replace('agui.txt', 'openai.txt') }],
          stream: true,
        },
        { ...mode('orchestration'), signal: abort.signal },
      )
      .withResponse();
    const runId = response.headers.get('x-parley-run-id')!;
    await (async () => {
      for await (const c of stream as AsyncIterable<ParleyChunk>) {
        if (c.parley && 'type' in c.parley && c.parley.type === 'approval.requested') abort.abort();
      }
    })().catch(() => undefined);
    expect((await rig.parley.engine.get(runId)!.result).status).toBe('cancelled');
    expect(rig.fixture.state.writes.some((w) => w.path === 'openai.txt')).toBe(false);
  });

  it('a non-streaming client that goes away cancels its run', async () => {
    const abort = new AbortController();
    const runIdsBefore = new Set(rig.parley.scripted.requests.map((r) => r.runId));
    const pending = client.chat.completions
      .create(
        { model: 'parley', messages: [{ role: 'user', content: NOTE_QUERY.replace('agui.txt', 'openai-sync.txt') }] },
        { ...mode('orchestration'), signal: abort.signal },
      )
      .catch((e: unknown) => e);
    // Wait until the run is waiting for its approval, then leave.
    const runId = await until(() => rig.parley.approvals.listPending().find((r) => !runIdsBefore.has(r.runId))?.runId);
    abort.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect((await rig.parley.engine.get(runId)!.result).status).toBe('cancelled');
  });
});

describe('citations: parley.citations', () => {
  type Provenance = { runId: string; sources?: unknown[]; references?: unknown[] };
  const readNotes = async (parley?: object) => {
    const data = await client.chat.completions.create({
      model: 'parley',
      messages: [{ role: 'user', content: READ_QUERY }],
      ...(parley ? { parley } : {}),
    } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    return { said: data.choices[0]!.message.content ?? '', parley: (data as unknown as { parley: Provenance }).parley };
  };

  it('"numbered": the message cites [1] and lists standup.md; the parley object carries the references', async () => {
    const { said, parley } = await readNotes({ citations: 'numbered' });
    expectNumbered(said);
    expect(parley.references).toEqual([STANDUP_REFERENCE]);
    expect(parley.sources).toEqual([STANDUP_SOURCE]);
    expect((await rig.parley.engine.get(parley.runId)!.result).answer).toBe(said);
  });

  it('"numbered", streamed: the content deltas cite [1]; the stop chunk\'s run.finished carries the references', async () => {
    const stream = await client.chat.completions.create({
      model: 'parley',
      messages: [{ role: 'user', content: READ_QUERY }],
      stream: true,
      parley: { citations: 'numbered' },
    } as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
    const { chunks, content } = await collect(stream);
    expectNumbered(content);
    const stop = chunks.find((c) => c.choices[0]?.finish_reason === 'stop');
    expect(stop?.parley).toMatchObject({
      type: 'run.finished',
      status: 'completed',
      answer: content,
      references: [STANDUP_REFERENCE],
      sources: [STANDUP_SOURCE],
    });
  });

  it('without it: no [n] in the message; the file read still comes as data, with no references', async () => {
    const { said, parley } = await readNotes();
    expectUncited(said);
    expect(parley.sources).toEqual([STANDUP_SOURCE]);
    expect(parley.references).toBeUndefined();
  });

  it('an unknown style is a 400 naming parley.citations, and starts no run', async () => {
    const before = rig.parley.engine.retainedRuns;
    const err = await readNotes({ citations: 'footnotes' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('parley.citations');
    expect(rig.parley.engine.retainedRuns).toBe(before);
  });
});
