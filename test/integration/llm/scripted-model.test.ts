/** The scripted model's answers and controls, through the openai SDK and plain fetch over real HTTP. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { promptLeftovers, startScriptedModel } from '../../../src/scripted-model/index.ts';
import { useScriptedModel } from '../../support/use-scripted-model.ts';

const scripted = useScriptedModel({ retryAfterMs: 1500 });
let openai: OpenAI;

beforeAll(() => {
  openai = new OpenAI({ baseURL: `${scripted.url}/v1`, apiKey: 'none', maxRetries: 0 });
});

async function structured(
  name: string,
  schema: Record<string, unknown>,
  content: string,
  system = '',
): Promise<unknown> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content }];
  if (system) messages.unshift({ role: 'system', content: system });
  const r = await openai.chat.completions.create({
    model: 'scripted',
    messages,
    response_format: { type: 'json_schema', json_schema: { name, schema } },
  });
  return JSON.parse(r.choices[0]!.message.content!);
}

const routeSchema = {
  type: 'object',
  properties: { route: { type: 'string', enum: ['direct', 'plan', 'council'] }, reason: { type: 'string' } },
  required: ['route', 'reason'],
};
const verificationSchema = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    feedback: { type: 'string' },
    failedStepIds: { type: 'array', items: { type: 'string' } },
  },
  required: ['score', 'feedback', 'failedStepIds'],
};
const steps = (statuses: string[]) =>
  `<parley:steps>${JSON.stringify(statuses.map((status, i) => ({ id: `s${i + 1}`, specialist: 'writer', status, output: `out ${i + 1}` })))}</parley:steps>`;

describe('schema answers', () => {
  it('routes greetings direct, decisions to the council, the rest to a plan, and obeys [[route:…]]', async () => {
    expect(await structured('route', routeSchema, '<parley:query>Hello!</parley:query>')).toMatchObject({
      route: 'direct',
    });
    expect(
      await structured(
        'route',
        routeSchema,
        '<parley:query>Should we move our monolith to microservices this year?</parley:query>',
      ),
    ).toMatchObject({ route: 'council' });
    expect(
      await structured(
        'route',
        routeSchema,
        '<parley:query>Write a migration plan for the orders database</parley:query>',
      ),
    ).toMatchObject({ route: 'plan' });
    expect(await structured('route', routeSchema, '<parley:query>hi [[route:plan]]</parley:query>')).toMatchObject({
      route: 'plan',
    });
  });

  it('plans [[steps:N]] round-robin and [[chain]] with templated dependencies', async () => {
    const specialists =
      '<parley:specialists>[{"id":"a","description":"x","domains":["research"]},{"id":"b","description":"y","domains":[]}]</parley:specialists>';
    const plan = (await structured(
      'graph_plan',
      {},
      '<parley:query>do things [[steps:3]] [[chain]]</parley:query>',
      specialists,
    )) as { steps: { id: string; specialist: string; dependsOn: string[]; objective: string; phase: string }[] };
    expect(plan.steps.map((s) => s.specialist)).toEqual(['a', 'b', 'a']);
    expect(plan.steps.map((s) => s.dependsOn)).toEqual([[], ['s1'], ['s2']]);
    expect(plan.steps[1]!.objective).toContain('{{s1.result}}');
    expect(plan.steps[0]!.phase).toBe('research');
  });

  it('scores verification from step statuses and from [[verify:…]] per round', async () => {
    expect(await structured('verification', verificationSchema, steps(['succeeded', 'succeeded']))).toMatchObject({
      score: 0.9,
      failedStepIds: [],
    });
    expect(await structured('verification', verificationSchema, steps(['succeeded', 'failed']))).toMatchObject({
      score: 0.5,
      failedStepIds: ['s2'],
    });
    expect(await structured('verification', verificationSchema, steps(['failed', 'failed']))).toMatchObject({
      score: 0.2,
    });
    const q = '<parley:query>q [[verify:0.5,0.9]]</parley:query>';
    expect(
      await structured('verification', verificationSchema, `${q}<parley:round>1</parley:round>${steps(['succeeded'])}`),
    ).toMatchObject({ score: 0.5, failedStepIds: ['s1'] });
    expect(
      await structured('verification', verificationSchema, `${q}<parley:round>3</parley:round>${steps(['succeeded'])}`),
    ).toMatchObject({ score: 0.9 });
  });

  it('reviews and decides a council from the anonymized answers, one candidate block each', async () => {
    const candidate = (label: string, text: string) =>
      `<parley:candidate label="${label}">\n${text}\n</parley:candidate>`;
    const answers = [
      candidate('A', 'Short.'),
      candidate('B', 'A much longer and more careful answer. With reasons.'),
      candidate('C', 'Medium length answer.'),
    ].join('\n\n');
    const review = (await structured(
      'council_review',
      {
        type: 'object',
        properties: {
          assessments: {
            type: 'array',
            items: {
              type: 'object',
              properties: { label: { type: 'string' }, critique: { type: 'string' } },
              required: ['label', 'critique'],
            },
          },
          ranking: { type: 'array', items: { type: 'string' } },
        },
        required: ['assessments', 'ranking'],
      },
      answers,
    )) as { assessments: { label: string }[]; ranking: string[] };
    expect(review.assessments.map((a) => a.label)).toEqual(['A', 'B', 'C']);
    expect(review.ranking).toEqual(['B', 'C', 'A']);
    const strings = ['comparison', 'recommendation', 'consensus', 'dissent', 'nextStep', 'confidenceReason', 'answer'];
    const verdictSchema = {
      type: 'object',
      properties: {
        ...Object.fromEntries(strings.map((k) => [k, { type: 'string' }])),
        keyInsights: { type: 'array', items: { type: 'string' } },
        blindSpots: { type: 'array', items: { type: 'string' } },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: [...strings, 'keyInsights', 'blindSpots', 'confidence'],
    };
    const verdict = (await structured(
      'council_verdict',
      verdictSchema,
      `<parley:query>Should we?</parley:query>${answers}`,
    )) as { recommendation: string; keyInsights: string[]; confidence: number; comparison: string; answer: string };
    // The best-ranked answer (B), named by its content: like a model following the chairman's prompt, no label.
    expect(verdict.recommendation).toContain('A much longer and more careful answer.');
    expect(verdict.recommendation).not.toMatch(/answer [A-C]\b/);
    expect(verdict.comparison).toContain('B > C > A');
    expect(verdict.answer).toContain(verdict.recommendation);
    expect(verdict.answer).not.toMatch(/^(Consensus|Dissent|Confidence):/m);
    expect(verdict.keyInsights).toHaveLength(3);
    expect(verdict.confidence).toBeGreaterThan(0);
  });

  it('answers an unknown schema with a minimal valid instance', async () => {
    const value = await structured(
      'anything',
      {
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 3 },
          tags: { type: 'array', minItems: 2, items: { type: 'string', minLength: 2 } },
          kind: { enum: ['x', 'y'] },
          opt: { type: 'string' },
        },
        required: ['n', 'tags', 'kind'],
      },
      'whatever',
    );
    expect(value).toEqual({ n: 3, tags: ['xx', 'xx'], kind: 'x' });
  });
});

describe('text and tools', () => {
  it('synthesizes from step results and quotes tool results, and never repeats a tool call', async () => {
    const synth = await openai.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: `<parley:query>Sum it up</parley:query>${steps(['succeeded'])}` }],
    });
    expect(synth.choices[0]!.message.content).toContain('out 1');
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'search_docs',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
      },
    ];
    const first = await openai.chat.completions.create({
      model: 'scripted',
      tools,
      messages: [{ role: 'user', content: 'Use search_docs to find it' }],
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('search_docs');
    const second = await openai.chat.completions.create({
      model: 'scripted',
      tools,
      messages: [
        { role: 'user', content: 'Use search_docs to find it' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'found: the answer is 42' },
      ],
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toContain('the answer is 42');
  });

  it('takes a tool directive from the query block too, e.g. when the user turn is only the objective', async () => {
    const r = await openai.chat.completions.create({
      model: 'scripted',
      tools: [{ type: 'function', function: { name: 'memory_create_entities', parameters: {} } }],
      messages: [
        {
          role: 'system',
          content:
            'You are the writer. <parley:query>Remember this [[tool:memory/create_entities {"entities":[]}]]</parley:query>',
        },
        { role: 'user', content: 'Objective: remember it' },
      ],
    });
    const call = r.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && [call.function.name, call.function.arguments]).toEqual([
      'memory_create_entities',
      '{"entities":[]}',
    ]);
  });

  it('streams tool calls in OpenAI chunk format', async () => {
    const stream = await openai.chat.completions.create({
      model: 'scripted',
      stream: true,
      tools: [{ type: 'function', function: { name: 'fs__read_file', parameters: {} } }],
      messages: [{ role: 'user', content: '[[tool:fs/read_file {"path":"a"}]]' }],
    });
    const calls = [];
    for await (const chunk of stream) for (const c of chunk.choices[0]?.delta.tool_calls ?? []) calls.push(c);
    expect(calls).toMatchObject([{ index: 0, function: { name: 'fs__read_file', arguments: '{"path":"a"}' } }]);
  });
});

describe('faults and controls', () => {
  it('sends Retry-After with a 429 and a JSON error with a 500', async () => {
    scripted.setFaults([
      { fault: '429', times: 1 },
      { fault: '500', times: 1 },
    ]);
    const body = JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'x' }] });
    const limited = await fetch(`${scripted.url}/v1/chat/completions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('retry-after-ms')).toBe('1500');
    const failed = await fetch(`${scripted.url}/v1/chat/completions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { type: 'server_error' } });
  });

  it('applies faults by role and text, set over HTTP, and rejects bad rules', async () => {
    const set = await fetch(`${scripted.url}/_scripted/faults`, {
      method: 'POST',
      body: JSON.stringify({ faults: [{ role: 'verifier', contains: 'boom', fault: '500', times: 2 }] }),
    });
    expect(set.status).toBe(200);
    const call = (role: string, content: string) =>
      openai.chat.completions
        .create({ model: 'scripted', messages: [{ role: 'user', content }] }, { headers: { 'x-parley-role': role } })
        .then(
          () => 200,
          (e: { status: number }) => e.status,
        );
    expect(await call('router', 'boom')).toBe(200);
    expect(await call('verifier', 'calm')).toBe(200);
    expect(await call('verifier', 'boom')).toBe(500);
    expect(await call('verifier', 'boom')).toBe(500);
    expect(await call('verifier', 'boom')).toBe(200);
    const bad = await fetch(`${scripted.url}/_scripted/faults`, {
      method: 'POST',
      body: JSON.stringify([{ fault: 'explode' }]),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { message: expect.stringContaining('fault must be one of') } });
  });

  it('a fault rate is seeded: two servers fail the same calls', async () => {
    const outcomes = async () => {
      const m = await startScriptedModel({ faultRate: 0.5, faultKinds: ['500'], seed: 7 });
      const client = new OpenAI({ baseURL: `${m.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const out = [];
      for (let i = 0; i < 8; i++)
        out.push(
          await client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'x' }] }).then(
            () => 'ok',
            () => 'fail',
          ),
        );
      await m.close();
      return out;
    };
    const a = await outcomes();
    expect(a).toContain('ok');
    expect(a).toContain('fail');
    expect(await outcomes()).toEqual(a);
  });

  it('logs requests over HTTP and answers unknown routes and bad bodies in OpenAI error shape', async () => {
    await openai.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'logged' }] },
      { headers: { 'x-parley-role': 'router', 'x-parley-run-id': 'r9' } },
    );
    const log = (await (await fetch(`${scripted.url}/_scripted/log`)).json()) as {
      role: string;
      runId: string;
      arrivedAt: number;
      finishedAt: number;
    }[];
    expect(log.at(-1)).toMatchObject({ role: 'router', runId: 'r9', aborted: false, status: 200 });
    expect(log.at(-1)!.finishedAt).toBeGreaterThanOrEqual(log.at(-1)!.arrivedAt);
    const missing = await fetch(`${scripted.url}/v1/images/generations`, { method: 'POST' });
    expect(missing.status).toBe(404);
    const bad = await fetch(`${scripted.url}/v1/chat/completions`, { method: 'POST', body: '{nope' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('adds fixed and per-token latency', async () => {
    const slow = await startScriptedModel({ latencyMs: 60, perTokenMs: 2 });
    try {
      const client = new OpenAI({ baseURL: `${slow.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const r = await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'time me' }],
      });
      const entry = slow.requests[0]!;
      expect(entry.finishedAt! - entry.arrivedAt).toBeGreaterThanOrEqual(60 + 2 * r.usage!.completion_tokens - 2);
    } finally {
      await slow.close();
    }
  });

  it('keeps only the latest logLimit requests when it has one', async () => {
    const bounded = await startScriptedModel({ logLimit: 10 });
    try {
      const client = new OpenAI({ baseURL: `${bounded.url}/v1`, apiKey: 'x', maxRetries: 0 });
      for (let i = 1; i <= 40; i++)
        await client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: `call ${i}` }] });
      expect(bounded.requests.length).toBeGreaterThanOrEqual(10);
      expect(bounded.requests.length).toBeLessThanOrEqual(11);
      expect(bounded.requests.at(-1)!.lastUserMessage).toBe('call 40');
      const served = (await (await fetch(`${bounded.url}/_scripted/log`)).json()) as { lastUserMessage: string }[];
      expect(served.map((e) => e.lastUserMessage)).toEqual(bounded.requests.map((e) => e.lastUserMessage));
      expect(served.some((e) => e.lastUserMessage === 'call 1')).toBe(false);
    } finally {
      await bounded.close();
    }
  });
});

describe('the prompt check (on in every test run)', () => {
  const ask = (content: string, role: string) =>
    fetch(`${scripted.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-parley-role': role },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content }] }),
    });

  it('refuses and records a request carrying <PARLEY_…>, ${…} or an unrendered {{id.result}}', async () => {
    const before = promptLeftovers.length;
    for (const leftover of ['files in <PARLEY_DATA_DIR>/workspace', 'home is ${HOME}', 'use {{s1.result}} here']) {
      const res = await ask(`Summarize this: ${leftover}`, 'specialist');
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('prompt_leftover');
      expect(body.error.message).toContain('unrendered placeholders');
    }
    const recorded = promptLeftovers.splice(before);
    expect(recorded.map((r) => r.role)).toEqual(['specialist', 'specialist', 'specialist']);
    expect(recorded.map((r) => r.found[0]!.split(' in ')[0])).toEqual([
      '<PARLEY_DATA_DIR>',
      '${HOME}',
      '{{s1.result}}',
    ]);
    expect(scripted.requests.at(-1)!.leftovers).toHaveLength(1);
  });

  it('lets the planner see the {{id.result}} syntax its instructions teach, and clean prompts through', async () => {
    expect((await ask('an objective may quote {{stepId.result}}', 'planner')).status).toBe(200);
    expect((await ask('a plain <parley:query>question</parley:query>', 'specialist')).status).toBe(200);
    expect(promptLeftovers).toEqual([]);
  });
});
