/**
 * The relay model through the openai SDK over real HTTP: each request becomes request files in its
 * folder and is answered by the answer file the test writes (as a person acting as the model would);
 * then Parley's engine runs through it end to end.
 */
import OpenAI from 'openai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelayModel, type RelayModel } from '../../../src/relay-model/server.ts';
import { embedText } from '../../../src/scripted-model/embeddings.ts';
import { countTokens } from '../../../src/scripted-model/tokens.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { createTestParley } from '../../support/engine.ts';
import { freePort } from '../../support/free-port.ts';
import { ofType } from '../../support/run-events.ts';
import { answerAll, waitForRequest, writeAnswer, type RelayRequestFile } from '../../support/relay-answers.ts';

let dir: string;
let relay: RelayModel;
let lines: string[];
let openai: OpenAI;

const start = async (timeoutMs?: number, holdMs?: number) => {
  relay = await startRelayModel({ dir, timeoutMs, holdMs, keepAliveMs: 20, pollMs: 20, log: (l) => lines.push(l) });
  openai = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'none', maxRetries: 0 });
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-relay-'));
  lines = [];
});
afterEach(async () => {
  await relay?.close();
  await rm(dir, { recursive: true, force: true });
});

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}; log:\n${lines.join('\n')}`);
};

describe('the relay model', () => {
  it('writes a text request with its x-parley headers, answers it from the answer file, and counts usage like the scripted model', async () => {
    await start();
    const messages = [
      { role: 'system' as const, content: 'You plan work.' },
      { role: 'user' as const, content: 'Plan a launch.' },
    ];
    const pending = openai.chat.completions.create(
      { model: 'relay', messages, max_completion_tokens: 500 },
      { headers: { 'x-parley-role': 'planner', 'x-parley-run-id': 'run-1' } },
    );
    const request = await waitForRequest(dir, '001-planner');
    expect(request.headers).toEqual({ 'x-parley-role': 'planner', 'x-parley-run-id': 'run-1' });
    expect(request.body.messages).toEqual(messages);
    const md = await readFile(join(dir, '001-planner.request.md'), 'utf8');
    expect(md).toContain('role **planner**');
    expect(md).toContain('max output tokens 500');
    expect(md).toMatch(/### 1\. system\n\n```text\nYou plan work\.\n```/);
    expect(md).toMatch(/### 2\. user\n\n```text\nPlan a launch\.\n```/);
    expect(md).toContain('Write `001-planner.answer.json`');
    expect(lines).toContainEqual(expect.stringMatching(/^001-planner: text — waiting for 001-planner\.answer\.json$/));

    await writeAnswer(dir, '001-planner', { content: 'Step 1: announce.' });
    const r = await pending;
    expect(r.choices[0]!.message.content).toBe('Step 1: announce.');
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.usage).toMatchObject({
      prompt_tokens: countTokens('You plan work.\nPlan a launch.'),
      completion_tokens: countTokens('Step 1: announce.'),
    });
  });

  it('streams tool calls whose arguments were given as a JSON string, with the usage chunk, and shows the tools in the request.md', async () => {
    await start();
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'filesystem/write_file',
          description: 'Writes a file in the workspace.',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
    ];
    // The response (and so the stream) starts only once the answer is there.
    const streaming = openai.chat.completions.create(
      {
        model: 'relay',
        messages: [{ role: 'user', content: 'Write notes/a.md' }],
        tools,
        stream: true,
        stream_options: { include_usage: true },
      },
      { headers: { 'x-parley-role': 'specialist' } },
    );
    await waitForRequest(dir, '001-specialist');
    const md = await readFile(join(dir, '001-specialist.request.md'), 'utf8');
    expect(md).toContain('## Tools offered (1)');
    expect(md).toContain('### `filesystem/write_file`\n\nWrites a file in the workspace.');
    expect(md).toContain('"required": [\n    "path"\n  ]');

    // A tool that was not offered is refused in the log, and the corrected file is read again.
    await writeAnswer(dir, '001-specialist', { tool_calls: [{ name: 'write_file', arguments: { path: 'x' } }] });
    await until(() => lines.some((l) => l.includes('"write_file" was not offered')), 'the invalid-answer line');
    await writeAnswer(dir, '001-specialist', {
      tool_calls: [{ name: 'filesystem/write_file', arguments: '{"path":"notes/a.md"}' }],
    });
    const calls: { name?: string; arguments?: string }[] = [];
    let finish: string | null = null;
    let usage: OpenAI.Completions.CompletionUsage | undefined;
    for await (const chunk of await streaming) {
      for (const t of chunk.choices[0]?.delta.tool_calls ?? []) calls.push(t.function ?? {});
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(calls).toEqual([{ name: 'filesystem/write_file', arguments: '{"path":"notes/a.md"}' }]);
    expect(finish).toBe('tool_calls');
    expect(usage?.completion_tokens).toBe(countTokens('filesystem/write_file{"path":"notes/a.md"}'));
  });

  it('shows a json_schema response format, refuses a non-JSON answer with a log line, and takes the rewritten one', async () => {
    await start();
    const schema = { type: 'object', properties: { route: { type: 'string', enum: ['direct', 'plan'] } } };
    const pending = openai.chat.completions.create(
      {
        model: 'relay',
        messages: [{ role: 'user', content: 'Route this.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'route', schema } },
      },
      { headers: { 'x-parley-role': 'router' } },
    );
    await waitForRequest(dir, '001-router');
    const md = await readFile(join(dir, '001-router.request.md'), 'utf8');
    expect(md).toContain('## Answer format: JSON (response_format json_schema `route`)');
    expect(md).toContain('"enum": [\n        "direct",\n        "plan"\n      ]');

    await writeAnswer(dir, '001-router', '{"content": "direct"');
    await until(
      () => lines.some((l) => /001-router: 001-router\.answer\.json is invalid: not valid JSON/.test(l)),
      'a',
    );
    await writeAnswer(dir, '001-router', { content: 'direct' });
    await until(() => lines.some((l) => l.includes('"content" is not JSON')), 'b');
    await writeAnswer(dir, '001-router', { content: { route: 'direct' } });
    const r = await pending;
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ route: 'direct' });
  });

  it('answers 504 with a clear message when no answer comes in time, and stops waiting when the client goes away', async () => {
    await start(300);
    const error = await openai.chat.completions
      .create({ model: 'relay', messages: [{ role: 'user', content: 'hello' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((error as Error).message).toMatch(
      /no answer for request 001-request within 0.3 s \(write 001-request\.answer\.json/,
    );

    const abort = new AbortController();
    const gone = openai.chat.completions
      .create({ model: 'relay', messages: [{ role: 'user', content: 'bye' }] }, { signal: abort.signal })
      .catch((e: unknown) => e);
    await waitForRequest(dir, '002-request');
    abort.abort();
    expect(await gone).toBeInstanceOf(OpenAI.APIUserAbortError);
    await until(() => lines.includes('002-request: the client went away; no longer waiting'), 'the abort line');
  });

  it('keeps a long wait alive once the hold passes: the answer still arrives, and a timeout arrives as an error in the stream', async () => {
    await start(600, 50);
    const pending = openai.chat.completions.create({ model: 'relay', messages: [{ role: 'user', content: 'slow' }] });
    await waitForRequest(dir, '001-request');
    await new Promise((r) => setTimeout(r, 200)); // past the hold: the 200 and the keep-alive spaces are out
    await writeAnswer(dir, '001-request', { content: 'late but whole' });
    expect((await pending).choices[0]!.message.content).toBe('late but whole');

    const streamed = await openai.chat.completions.create({
      model: 'relay',
      messages: [{ role: 'user', content: 'never answered' }],
      stream: true,
    });
    const error = await (async () => {
      for await (const _chunk of streamed) {
        // no chunk comes before the error
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/no answer for request 002-request within 0.6 s/);
    expect(lines).toContain('002-request: no answer within 0.6 s; answered with a timeout error');
  });

  it('lists its model, embeds deterministically like the scripted model, and refuses a bad body, a foreign Host and a web page Origin in OpenAI shape', async () => {
    await start();
    expect((await openai.models.list()).data.map((m) => m.id)).toEqual(['relay']);
    const e = await openai.embeddings.create({
      model: 'embed',
      input: ['alpha docs', 'beta'],
      encoding_format: 'float',
    });
    expect(e.data[0]!.embedding).toEqual(embedText('alpha docs'));
    expect(e.data[1]!.embedding).toEqual(embedText('beta'));
    const bad = await fetch(`${relay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messages": []}',
    });
    expect(bad.status).toBe(400);
    // fetch will not send another Host: node:http does.
    const rebound = await new Promise<number>((done, fail) => {
      const url = new URL(relay.url);
      get({ host: url.hostname, port: url.port, path: '/v1/models', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      }).on('error', fail);
    });
    expect(rebound).toBe(403);
    const page = await fetch(`${relay.url}/v1/models`, { headers: { origin: 'https://evil.example' } });
    expect(page.status).toBe(403);
    expect(((await page.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect(await bad.json()).toEqual({
      error: {
        message: '`messages` must be a non-empty array.',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
  });

  it('continues numbering after the requests a previous relay left in the folder', async () => {
    await start();
    const first = openai.chat.completions.create({ model: 'relay', messages: [{ role: 'user', content: 'one' }] });
    await waitForRequest(dir, '001-request');
    await writeAnswer(dir, '001-request', { content: 'ok' });
    await first;
    await relay.close();
    await start();
    const second = openai.chat.completions.create({ model: 'relay', messages: [{ role: 'user', content: 'two' }] });
    expect((await waitForRequest(dir, '002-request')).body.messages).toEqual([{ role: 'user', content: 'two' }]);
    await writeAnswer(dir, '002-request', { content: 'ok' });
    await second;
  });
});

describe('npm run model:relay', () => {
  it('prints where it listens and the folder, then each request id as it arrives', async () => {
    const port = await freePort();
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/relay-model/main.ts', '--dir', dir, '--port', String(port)],
      {
        cwd: root,
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until(() => out.includes('answer each with'), 'the start lines');
      expect(out).toContain(`Relay model listening: point an OpenAI client at http://127.0.0.1:${port}/v1`);
      expect(out).toContain(`Requests are written to ${dir}/<id>.request.json`);
      const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'none', maxRetries: 0 });
      const pending = client.chat.completions.create(
        { model: 'relay', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-parley-role': 'router' } },
      );
      await until(() => out.includes('001-router: text — waiting for 001-router.answer.json'), 'the request line');
      await writeAnswer(dir, '001-router', { content: 'hello' });
      expect((await pending).choices[0]!.message.content).toBe('hello');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe("Parley's engine through the relay", () => {
  /** A trivial model: the JSON each structured role needs, a short text for everyone else. */
  const decide = (r: RelayRequestFile) => {
    const schema = r.body.response_format?.json_schema?.name;
    if (schema === 'route') return { content: { route: 'direct', reason: 'one answer serves' } };
    if (schema === 'verification') return { content: { score: 0.9, feedback: 'Complete.', failedStepIds: [] } };
    return { content: `Answer from the relay for ${r.headers['x-parley-role']}.` };
  };

  it('runs a routed direct answer and a planned step, verification and synthesis, answered from the folder', async () => {
    await start();
    const answerer = answerAll(dir, decide);
    const p = await createTestParley({ modelUrl: relay.url });
    try {
      const direct = await p.run({ query: 'What is a quorum?', mode: 'auto' });
      expect(direct.result).toMatchObject({ status: 'completed', answer: 'Answer from the relay for default.' });
      expect(ofType(direct.events, 'route.decided')[0]).toMatchObject({ stage: 'direct' });

      const query = 'Draft release notes';
      p.givePlan(
        query,
        GraphPlanSchema.parse({ steps: [{ id: 'notes', specialist: 'writer', objective: 'Draft them' }] }),
      );
      const planned = await p.run({ query, mode: 'orchestrate' });
      expect(planned.result.status).toBe('completed');
      expect(planned.result.answer).toContain('Answer from the relay for synthesizer.');
      expect(ofType(planned.events, 'step.finished')[0]).toMatchObject({ stepId: 'notes', status: 'succeeded' });

      // Every model call of both runs is a request file, with its role and run id; usage matches the files.
      const roles = answerer.answered.map((r) => [r.headers['x-parley-role'], r.headers['x-parley-run-id']]);
      expect(roles).toEqual([
        ['router', direct.result.runId],
        ['default', direct.result.runId],
        ['specialist', planned.result.runId],
        ['verifier', planned.result.runId],
        ['synthesizer', planned.result.runId],
      ]);
      const lastUsage = ofType(planned.events, 'usage').at(-1)!.usage;
      expect(lastUsage.modelCalls).toBe(3);
      const md = await readFile(join(dir, `${answerer.answered[2]!.id}.request.md`), 'utf8');
      expect(md).toContain('Draft them');
    } finally {
      await answerer.stop();
      await p.close();
    }
  });
});
