/**
 * THE table of what the fuzz test attacks: every route Parley serves, one row each, found with
 *   grep -rnE "app\.(get|post|all|on)\(|\.route\(|upgrade" src/
 * (src/http/app.ts, src/knowledge/routes.ts, src/hitl/routes.ts, src/protocols/{sse,agui,openai,a2a}/routes.ts,
 * src/protocols/sse/{time-travel-routes,eval-routes,threads}.ts, src/protocols/a2a/rest.ts, src/protocols/mcp/http.ts,
 * src/protocols/acp/{http,ws}.ts; the console's static files, src/console/, have no row).
 * A route added there needs a row here.
 *
 * Each row generates the near-valid part of a request (path, route-specific headers, body); the
 * generic decorations (wrong method, bad Authorization, foreign Host/Origin, wrong content type,
 * bad encodings) are added by request.ts. Rows that start runs (`startsRuns`) generate only
 * requests that are invalid by the documented contract, and label why: so "no run is created"
 * must hold for every request the test sends.
 */
import fc from 'fast-check';
import { RUN_MODES } from '../../../src/graph/run/request.ts';
import {
  anyJson,
  deep,
  edge,
  huge,
  idSegment,
  junkQuery,
  notArray,
  notObject,
  notString,
  notText,
  rpc,
  someText,
  text,
  withLoneSurrogate,
} from './arbitraries.ts';
import type { Encoding, Frame } from './wire.ts';

export type Protocol = 'rest' | 'openai' | 'a2a' | 'mcp' | 'acp' | 'ws';

/** The route-specific part of a request. */
export interface Shape {
  path: string;
  headers?: Record<string, string>;
  /** A JSON body (may hold wire.ts stand-ins); `raw` sends text as is. */
  body?: { json: unknown } | { raw: string };
  /** An encoding the body must be sent in (an encoding error is what makes it invalid). */
  encoding?: Encoding;
  /** WebSocket rows: the frames sent after the upgrade (text frames are JSON stand-ins or raw text). */
  frames?: Frame[];
  why: string;
}

export interface Endpoint {
  /** "METHOD /path" as the router declares it. */
  id: string;
  /** The methods the route answers (the first is the usual one). */
  methods: string[];
  protocol: Protocol;
  /** The route can start a run: every generated request must be invalid. */
  startsRuns: boolean;
  /** The route reads a JSON body (so a simple-request content type must get 415). */
  json: boolean;
  near: fc.Arbitrary<Shape>;
}

// ── helpers ──────────────────────────────────────────────────────────────────

type Json = Record<string, unknown>;

/** A labelled change that makes a valid body invalid. */
interface Violation {
  why: string;
  apply(body: Json): Json;
  headers?: Record<string, string>;
  encoding?: Encoding;
}

const clone = <T>(v: T): T => structuredClone(v);

/** Sets (or, with `undefined`, deletes) the value at a dotted path, creating objects on the way. */
function setAt(body: Json, path: string, value: unknown): Json {
  const copy = clone(body);
  const keys = path.split('.');
  let at: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) {
    const next = at[k];
    at = (typeof next === 'object' && next !== null ? next : (at[k] = {})) as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

/** A violation that puts a generated value at `path`. */
const put = (why: string, path: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<Violation> =>
  value.map((v) => ({ why, apply: (b: Json) => setAt(b, path, v) }));

const remove = (why: string, path: string): fc.Arbitrary<Violation> =>
  fc.constant({ why, apply: (b: Json) => setAt(b, path, undefined) });

/**
 * The three ways a body that is otherwise valid is still not valid UTF-8 JSON text (issue 12 §4):
 * a BOM, a lone surrogate (escaped, and raw as WTF-8 bytes), Latin-1 bytes. `textAt` is where the text goes.
 */
function encodingViolations(textAt: string): fc.Arbitrary<Violation>[] {
  return [
    fc.constant({ why: 'encoding:bom', encoding: 'bom' as const, apply: (b: Json) => b }),
    put('encoding:lone-surrogate-escaped', textAt, withLoneSurrogate),
    withLoneSurrogate.map((s) => ({
      why: 'encoding:lone-surrogate-raw',
      encoding: 'wtf8' as const,
      apply: (b: Json) => setAt(b, textAt, s),
    })),
    fc.constant({
      why: 'encoding:latin1',
      encoding: 'latin1' as const,
      apply: (b: Json) => setAt(b, textAt, 'caf\u00e9 cr\u00e8me'),
    }),
  ];
}

/** A valid template, then exactly one violation (applied last, so nothing makes the body valid again). */
function invalid(
  template: fc.Arbitrary<Json>,
  violations: fc.Arbitrary<Violation>[],
): fc.Arbitrary<{ body: Json; why: string; encoding?: Encoding; headers?: Record<string, string> }> {
  return fc.tuple(template, fc.oneof(...violations)).map(([t, v]) => ({
    body: v.apply(t),
    why: v.why,
    ...(v.encoding ? { encoding: v.encoding } : {}),
    ...(v.headers ? { headers: v.headers } : {}),
  }));
}

/** Text a valid body may carry: short, unicode-heavy, or large (stays under the body limit). */
const freeText = fc.oneof(
  { arbitrary: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''), weight: 4 },
  {
    arbitrary: fc
      .array(edge, { minLength: 1, maxLength: 4 })
      .map((a) => `q ${a.join('')}`.replace(/[\ud800-\udfff]/g, '')),
    weight: 2,
  },
  { arbitrary: huge(1_000, 300_000).filter((h) => !/[\ud800-\udfff]/.test(h.unit)), weight: 1 },
);

/** A string key no strict schema knows. */
const unknownKey = (known: string[]) =>
  fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !known.includes(k) && k !== '__proto__');
const notIn = (values: readonly string[]) =>
  fc.oneof(
    fc.string({ maxLength: 12 }).filter((s) => !values.includes(s)),
    notString,
  );

const shape = (path: string, why: string, extra: Partial<Shape> = {}): Shape => ({ path, why, ...extra });
const withBody =
  (path: string) =>
  (r: { body: unknown; why: string; encoding?: Encoding; headers?: Record<string, string> }): Shape => ({
    path,
    why: r.why,
    body: { json: r.body },
    ...(r.encoding ? { encoding: r.encoding } : {}),
    ...(r.headers ? { headers: r.headers } : {}),
  });

/** Random bodies any JSON route gets: random JSON, broken JSON text, deep nesting, a huge string. */
const junkBodies = (path: string): fc.Arbitrary<Shape> =>
  fc.oneof(
    anyJson.map((json) => shape(path, 'junk:json', { body: { json } })),
    fc
      .oneof(
        text,
        fc.constantFrom(
          '{',
          '{"a":',
          '[1,]',
          '{"a":1}}',
          'null',
          '"',
          '\u0000',
          '{"a":1,"a":2}',
          'NaN',
          '1e99999',
          '{"__proto__":{"x":1}}',
        ),
      )
      .map((raw) => shape(path, 'junk:text', { body: { raw } })),
    deep.map((d) => shape(path, 'junk:deep', { body: { json: d } })),
    huge(100_000, 1_500_000).map((h) => shape(path, 'junk:huge', { body: { json: h } })),
  );

/** A route with path parameters filled by generated ids, and junk or near-valid query strings. */
const getShape = (template: string, query: fc.Arbitrary<string> = junkQuery): fc.Arbitrary<Shape> =>
  fc.tuple(fc.array(idSegment, { minLength: 3, maxLength: 3 }), query).map(([ids, q]) => {
    let i = 0;
    return shape(template.replace(/:[a-zA-Z]+/g, () => ids[i++]!) + q, 'get');
  });

const queryOf = (params: Record<string, fc.Arbitrary<string>>) =>
  fc.tuple(fc.record(params, { requiredKeys: [] }), junkQuery).map(([p, junk]) => {
    const own = Object.entries(p).map(
      ([k, v]) => `${k}=${encodeURIComponent((v ?? '').replace(/[\ud800-\udfff]/g, '\ufffd'))}`,
    );
    return own.length ? `?${own.join('&')}${junk.replace('?', '&')}` : junk;
  });

// ── POST /stream ─────────────────────────────────────────────────────────────

const STREAM_KEYS = ['query', 'threadId', 'mode', 'models', 'budget'];
const streamTemplate: fc.Arbitrary<Json> = fc.record(
  {
    query: freeText,
    threadId: fc.string({ minLength: 1, maxLength: 40 }),
    mode: fc.constantFrom(...RUN_MODES),
    budget: fc.record({ tokens: fc.integer({ min: 1, max: 10_000 }) }),
  },
  { requiredKeys: ['query'] },
);
const runOptionViolations = (at: string): fc.Arbitrary<Violation>[] => [
  put('mode-invalid', `${at}mode`, notIn(RUN_MODES)),
  put(
    'models-invalid',
    `${at}models`,
    fc.oneof(
      notObject.filter((v) => v !== null),
      fc.constant({ wizard: 'gpt' }),
      fc.constant({ synthesizer: '' }),
      fc.constant({ synthesizer: 5 }),
    ),
  ),
  put(
    'budget-invalid',
    `${at}budget`,
    fc.oneof(
      notObject.filter((v) => v !== null),
      fc.constantFrom(
        { tokens: 0 },
        { tokens: -1 },
        { tokens: 1.5 },
        { costUsd: 'x' },
        { wallTimeMs: -5 },
        { gold: 1 },
        { modelCalls: null },
      ),
    ),
  ),
];
const streamBodies = invalid(streamTemplate, [
  remove('query-missing', 'query'),
  put('query-not-text', 'query', notText),
  unknownKey(STREAM_KEYS).chain((k) => put('unknown-field', k, anyJson)),
  put('threadId-invalid', 'threadId', fc.oneof(fc.constant(''), fc.constant('t'.repeat(201)), notString)),
  ...runOptionViolations(''),
  ...encodingViolations('query'),
]).map(withBody('/stream'));

// ── POST /ag-ui ──────────────────────────────────────────────────────────────

const aguiTemplate: fc.Arbitrary<Json> = fc.record({
  threadId: someText,
  // A fresh id per request: a reused one would be refused (409) before the violation is looked at.
  runId: fc.constant('<fresh-id>'),
  state: fc.constant({}),
  messages: freeText.map((content) => [{ id: 'm1', role: 'user', content }]),
  tools: fc.constant([]),
  context: fc.constant([]),
  forwardedProps: fc.constant({}),
});
const aguiBodies = invalid(aguiTemplate, [
  put('messages-not-array', 'messages', notArray),
  put(
    'no-user-message',
    'messages',
    fc.constantFrom(
      [],
      [{ id: 'a', role: 'assistant', content: 'hello' }],
      [{ id: 's', role: 'system', content: 'be brief' }],
    ),
  ),
  put(
    'user-content-blank',
    'messages',
    fc.constantFrom('', ' ', '\n').map((content) => [{ id: 'm1', role: 'user', content }]),
  ),
  put(
    'user-content-type',
    'messages',
    fc
      .oneof(
        notString.filter((v) => v !== null && !Array.isArray(v)),
        fc.constant([{ type: 'text', text: 5 }]),
      )
      .map((content) => [{ id: 'm1', role: 'user', content }]),
  ),
  put(
    'role-invalid',
    'messages',
    fc.constantFrom('wizard', 5, null).map((role) => [{ id: 'm1', role, content: 'hi' }]),
  ),
  put('threadId-type', 'threadId', notString),
  put('runId-type', 'runId', notString),
  ...runOptionViolations('forwardedProps.parley.'),
  put(
    'parley-props-invalid',
    'forwardedProps.parley',
    fc.oneof(
      fc.constantFrom({ interrupts: 'yes' }, { continueOnDisconnect: 1 }, { gold: true }),
      notObject.filter((v) => v !== null),
    ),
  ),
  put(
    'resume-unknown',
    'resume',
    fc.uuid().map((interruptId) => [{ interruptId, status: 'resolved', payload: { decisions: {} } }]),
  ),
  ...encodingViolations('messages.0.content'),
]).map(withBody('/ag-ui'));

// ── POST /v1/chat/completions ────────────────────────────────────────────────

const ROUTING = ['passthrough', 'orchestration', 'council', 'auto'];
const chatTemplate: fc.Arbitrary<Json> = fc.record(
  {
    model: fc.constantFrom('parley', 'parley-orchestration', 'parley-council'),
    messages: freeText.map((content) => [{ role: 'user', content }]),
    stream: fc.boolean(),
  },
  { requiredKeys: ['model', 'messages'] },
);
const chatBodies = invalid(chatTemplate, [
  put('model-invalid', 'model', fc.oneof(fc.constant(''), notString)),
  put('messages-invalid', 'messages', fc.oneof(notArray, fc.constant([]))),
  put(
    'role-invalid',
    'messages',
    fc.constantFrom('wizard', 5, null).map((role) => [{ role, content: 'hi' }]),
  ),
  put(
    'content-type',
    'messages',
    fc
      .constantFrom(5, true, {}, [{ type: 5 }], [{ type: 'text', text: 5 }], [{}])
      .map((content) => [{ role: 'user', content }]),
  ),
  put('no-user-message', 'messages', fc.constant([{ role: 'system', content: 'be brief' }])),
  put(
    'user-content-blank',
    'messages',
    fc.constantFrom('', '   ', null, []).map((content) => [{ role: 'user', content }]),
  ),
  put('stream-type', 'stream', fc.constantFrom('yes', 1, {})),
  put('stream-options-type', 'stream_options', fc.constantFrom('x', 1, [], { include_usage: 'yes' })),
  put('tools-type', 'tools', fc.constantFrom('x', 5, {})),
  put('response-format-type', 'response_format', fc.constantFrom('json', 5, {})),
  fc
    .stringMatching(/^[ -~]{1,20}$/)
    .filter((h) => !ROUTING.includes(h.trim().toLowerCase()) && h.trim() !== '')
    .map((h) => ({ why: 'routing-header-invalid', headers: { 'x-routing-mode': h }, apply: (b: Json) => b })),
  ...encodingViolations('messages.0.content'),
]).map(withBody('/v1/chat/completions'));

// ── POST /a2a ────────────────────────────────────────────────────────────────

const a2aMessage03 = fc.record({
  kind: fc.constant('message'),
  messageId: someText,
  role: fc.constant('user'),
  parts: freeText.map((t) => [{ kind: 'text', text: t }]),
});
const a2aMessage10 = fc.record({
  messageId: someText,
  role: fc.constant('ROLE_USER'),
  parts: freeText.map((t) => [{ text: t }]),
});
const a2aParamViolations = (v: '0.3' | '1.0'): fc.Arbitrary<Violation>[] => [
  put('role-invalid', 'message.role', fc.constantFrom('wizard', 5, null, '', v === '0.3' ? 'ROLE_WIZARD' : 'wizard')),
  put(
    'text-part-type',
    'message.parts',
    notString.map((t) => (v === '0.3' ? [{ kind: 'text', text: t }] : [{ text: t }])),
  ),
  put('parts-invalid', 'message.parts', fc.oneof(notArray, fc.constant([]))),
  put(
    'no-usable-part',
    'message.parts',
    fc.constant(
      v === '0.3'
        ? [{ kind: 'file', file: { uri: 'https://example.com/x.bin', mimeType: 'application/x-fuzz' } }]
        : [{ url: 'https://example.com/x.bin', mediaType: 'application/x-fuzz' }],
    ),
  ),
  put(
    'data-part-only',
    'message.parts',
    fc.constant(v === '0.3' ? [{ kind: 'data', data: { a: 1 } }] : [{ data: { a: 1 } }]),
  ),
  put('message-invalid', 'message', notObject),
  remove('message-missing', 'message'),
  put(
    'messageId-type',
    'message.messageId',
    notString.filter((x) => x !== null),
  ),
  put(
    'taskId-type',
    'message.taskId',
    notString.filter((x) => x !== null),
  ),
  put(
    'contextId-type',
    'message.contextId',
    notString.filter((x) => x !== null),
  ),
  put('metadata-invalid', 'metadata', fc.oneof(fc.constantFrom('x', 5, [1]), fc.constant({ mode: 'turbo' }))),
  ...encodingViolations(v === '0.3' ? 'message.parts.0.text' : 'message.parts.0.text'),
];
const a2aRunning = (v: '0.3' | '1.0') =>
  invalid(fc.record({ message: v === '0.3' ? a2aMessage03 : a2aMessage10 }), a2aParamViolations(v)).chain((p) =>
    rpc(
      fc.constantFrom(...(v === '0.3' ? ['message/send', 'message/stream'] : ['SendMessage', 'SendStreamingMessage'])),
      fc.constant(p.body),
    ).map((envelope): Shape => ({
      path: '/a2a',
      why: `a2a-${v}:${p.why}`,
      body: { json: envelope },
      headers: v === '1.0' ? { 'a2a-version': '1.0' } : {},
      ...(p.encoding ? { encoding: p.encoding } : {}),
    })),
  );
const A2A_OTHER_METHODS = [
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
];
const a2aRunningMethods = new Set(['message/send', 'message/stream', 'SendMessage', 'SendStreamingMessage']);
const a2aTaskParams = fc.oneof(
  fc.record(
    { id: fc.oneof(someText, notString), historyLength: fc.oneof(fc.integer(), fc.constantFrom('x', -1, 1e9)) },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      name: fc.oneof(
        someText.map((s) => `tasks/${s}`),
        notString,
      ),
      pageSize: fc.oneof(fc.integer(), fc.constant('x')),
      contextId: fc.oneof(someText, notString),
      status: fc.oneof(someText, notString),
    },
    { requiredKeys: [] },
  ),
  notObject,
  anyJson,
);
const a2aOther = fc
  .tuple(
    rpc(
      fc.oneof(
        fc.constantFrom(...A2A_OTHER_METHODS),
        fc.string({ maxLength: 20 }).filter((m) => !a2aRunningMethods.has(m)),
        notString,
      ),
      a2aTaskParams,
    ),
    fc.constantFrom<Record<string, string>>(
      {},
      { 'a2a-version': '1.0' },
      { 'a2a-version': '0.3' },
      { 'a2a-version': '9.9' },
      { 'a2a-version': '' },
    ),
  )
  .map(([envelope, headers]): Shape => ({ path: '/a2a', why: 'a2a:other-method', body: { json: envelope }, headers }));
const a2aBodies = fc.oneof(a2aRunning('0.3'), a2aRunning('1.0'), a2aOther, junkBodies('/a2a'));

// ── /a2a/rest (A2A's HTTP+JSON binding) ──────────────────────────────────────

const a2aRestSend = (path: string) =>
  fc.oneof(
    invalid(fc.record({ message: a2aMessage10 }), a2aParamViolations('1.0')).map((p): Shape => ({
      path,
      why: `a2a-rest:${p.why}`,
      body: { json: p.body },
      headers: { 'a2a-version': '1.0', ...p.headers },
      ...(p.encoding ? { encoding: p.encoding } : {}),
    })),
    junkBodies(path),
  );
const a2aRestQuery = queryOf({
  pageSize: fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), text),
  historyLength: fc.oneof(fc.integer({ min: -5, max: 50 }).map(String), text),
  status: fc.oneof(fc.constantFrom('TASK_STATE_COMPLETED', '3', 'x'), text),
  pageToken: text,
  statusTimestampAfter: text,
  includeArtifacts: fc.constantFrom('true', 'false', 'x'),
});

// ── /mcp (Streamable HTTP) ───────────────────────────────────────────────────

const MCP_ACCEPT = 'application/json, text/event-stream';
const mcpHeaders = (session: fc.Arbitrary<string | undefined>) =>
  fc
    .record({
      session,
      accept: fc.oneof(
        { arbitrary: fc.constant(MCP_ACCEPT), weight: 8 },
        fc.constantFrom('application/json', 'text/event-stream', '*/*', undefined),
      ),
      version: fc.oneof(
        { arbitrary: fc.constant('2025-06-18'), weight: 4 },
        fc.constantFrom(undefined, '1999-01-01', 'x'),
      ),
    })
    .map(({ session: s, accept, version }) => {
      const h: Record<string, string> = {};
      if (s !== undefined) h['mcp-session-id'] = s;
      if (accept !== undefined) h.accept = accept;
      if (version !== undefined) h['mcp-protocol-version'] = version;
      return h;
    });
const mcpSession = fc.oneof(
  { arbitrary: fc.constant('<mcp-session>'), weight: 8 },
  fc.constant(undefined),
  fc.uuid(),
  fc.stringMatching(/^[!-~]{1,40}$/),
);
const askViolations: fc.Arbitrary<Violation>[] = [
  put(
    'ask-query-invalid',
    'query',
    fc.oneof(
      fc.constant(''),
      notString,
      huge(20_001, 60_000).filter((h) => h.unit === 'x'),
    ),
  ),
  put('ask-mode-invalid', 'mode', notIn(RUN_MODES)),
  put('ask-threadId-invalid', 'threadId', fc.oneof(fc.constant(''), fc.constant('t'.repeat(201)), notString)),
  remove('ask-query-missing', 'query'),
  ...encodingViolations('query'),
];
const mcpRunning = fc
  .oneof(
    invalid(
      fc.record({ query: freeText, mode: fc.constantFrom(...RUN_MODES) }, { requiredKeys: ['query'] }),
      askViolations,
    ).map((r) => ({ ...r, tool: 'ask' })),
    invalid(fc.record({ question: freeText }), [
      put('council-question-invalid', 'question', fc.oneof(fc.constant(''), notString)),
      remove('council-question-missing', 'question'),
      ...encodingViolations('question'),
    ]).map((r) => ({ ...r, tool: 'council' })),
  )
  .chain((r) =>
    fc
      .tuple(
        rpc(fc.constant('tools/call'), fc.constant({ name: r.tool, arguments: r.body })),
        mcpHeaders(fc.constant('<mcp-session>')),
      )
      .map(([envelope, headers]): Shape => ({
        path: '/mcp',
        why: `mcp:${r.tool}:${r.why}`,
        body: { json: envelope },
        headers,
        ...(r.encoding ? { encoding: r.encoding } : {}),
      })),
  );
const mcpOtherCalls = rpc(
  fc.constantFrom(
    'tools/call',
    'tools/list',
    'resources/list',
    'resources/read',
    'resources/templates/list',
    'resources/subscribe',
    'prompts/list',
    'prompts/get',
    'completion/complete',
    'logging/setLevel',
    'ping',
    'notifications/cancelled',
    'notifications/initialized',
    'sampling/createMessage',
    'wizard/teleport',
  ),
  fc.oneof(
    fc.record({
      name: fc.constantFrom('get_run', 'list_specialists', 'search_memory', 'approve', 'no_such_tool'),
      arguments: fc.oneof(fc.constant(undefined), notObject),
    }),
    fc.record({
      name: fc.constantFrom('get_run', 'search_memory', 'approve', 'list_specialists'),
      arguments: fc.record(
        {
          run_id: fc.oneof(someText, notString),
          query: fc.oneof(someText, notString),
          k: fc.oneof(fc.integer(), fc.constant('x')),
          request_id: fc.oneof(someText, notString),
          decisions: fc.oneof(notObject, fc.constant({ x: 'accept' })),
          kind: fc.oneof(fc.constant('prompt'), notString),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      uri: fc.oneof(
        someText,
        fc.constantFrom(
          'parley://runs/x',
          'parley://runs/',
          'parley://decisions/x',
          'file:///etc/passwd',
          'http://169.254.169.254/',
        ),
        notString,
      ),
    }),
    fc.record({ level: fc.oneof(someText, notString), cursor: fc.oneof(someText, notString) }, { requiredKeys: [] }),
    anyJson,
  ),
);
const mcpInitialize = invalid(
  fc.record({
    protocolVersion: fc.constant('2025-06-18'),
    capabilities: fc.constant({}),
    clientInfo: fc.record({ name: someText, version: fc.constant('1') }),
  }),
  [
    put('init-version-type', 'protocolVersion', notString),
    put('init-clientInfo-invalid', 'clientInfo', fc.oneof(notObject, fc.constant({ name: 5 }))),
    put('init-capabilities-invalid', 'capabilities', notObject),
    remove('init-clientInfo-missing', 'clientInfo'),
  ],
).chain((r) =>
  fc
    .tuple(rpc(fc.constant('initialize'), fc.constant(r.body)), mcpHeaders(fc.constant(undefined)))
    .map(([envelope, headers]): Shape => ({ path: '/mcp', why: `mcp:${r.why}`, body: { json: envelope }, headers })),
);
const mcpBodies = fc.oneof(
  mcpRunning,
  mcpInitialize,
  fc
    .tuple(mcpOtherCalls, mcpHeaders(mcpSession))
    .map(([envelope, headers]): Shape => ({ path: '/mcp', why: 'mcp:other-call', body: { json: envelope }, headers })),
  fc
    .tuple(fc.array(mcpOtherCalls, { minLength: 1, maxLength: 3 }), mcpHeaders(mcpSession))
    .map(([batch, headers]): Shape => ({ path: '/mcp', why: 'mcp:batch', body: { json: batch }, headers })),
  fc.tuple(junkBodies('/mcp'), mcpHeaders(mcpSession)).map(([s, headers]) => ({ ...s, headers })),
);

// ── /acp (HTTP) ──────────────────────────────────────────────────────────────

const acpConnection = fc.oneof(
  { arbitrary: fc.constant('<acp-connection>'), weight: 8 },
  fc.constant(undefined),
  fc.uuid(),
  fc.stringMatching(/^[!-~]{1,40}$/),
);
const acpHeaders = (connection: fc.Arbitrary<string | undefined>) =>
  connection.map((c): Record<string, string> => (c === undefined ? {} : { 'acp-connection-id': c }));
const promptViolations: fc.Arbitrary<Violation>[] = [
  put('prompt-not-array', 'prompt', notArray),
  put('prompt-empty', 'prompt', fc.constant([])),
  put(
    'prompt-text-type',
    'prompt',
    notString.map((t) => [{ type: 'text', text: t }]),
  ),
  put(
    'prompt-text-blank',
    'prompt',
    fc.constantFrom('', '  ', '\n').map((t) => [{ type: 'text', text: t }]),
  ),
  put(
    'prompt-unsupported-block',
    'prompt',
    fc.constantFrom(
      [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }],
      [{ type: 'wizard' }],
      [{ type: 'resource', resource: { uri: 'x:y', blob: 'AAAA' } }],
      [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    ),
  ),
  put('sessionId-type', 'sessionId', notString),
  ...encodingViolations('prompt.0.text'),
];
const acpPrompt = invalid(
  fc.record({
    sessionId: fc.oneof({ arbitrary: fc.constant('<acp-session>'), weight: 4 }, fc.uuid()),
    prompt: freeText.map((t) => [{ type: 'text', text: t }]),
  }),
  promptViolations,
).chain((r) =>
  fc
    .tuple(rpc(fc.constant('session/prompt'), fc.constant(r.body)), acpHeaders(fc.constant('<acp-connection>')))
    .map(([envelope, headers]): Shape => ({
      path: '/acp',
      why: `acp:prompt:${r.why}`,
      body: { json: envelope },
      headers,
      ...(r.encoding ? { encoding: r.encoding } : {}),
    })),
);
const acpOtherCalls = rpc(
  fc.constantFrom(
    'session/new',
    'session/load',
    'session/set_mode',
    'session/set_model',
    'session/cancel',
    'session/list',
    'authenticate',
    'initialize',
    'fs/read_text_file',
    'wizard/teleport',
  ),
  fc.oneof(
    fc.record({ cwd: notString, mcpServers: fc.oneof(notArray, fc.constant([{ name: 5 }])) }),
    fc.record(
      {
        sessionId: fc.oneof(fc.constant('<acp-session>'), someText, notString),
        modeId: fc.oneof(someText, notString),
        modelId: fc.oneof(someText, notString),
        methodId: fc.oneof(someText, notString),
      },
      { requiredKeys: [] },
    ),
    fc.record({ protocolVersion: fc.oneof(notString, fc.constant('1')), clientCapabilities: notObject }),
    anyJson,
  ),
);
const acpBodies = fc.oneof(
  acpPrompt,
  fc
    .tuple(acpOtherCalls, acpHeaders(acpConnection))
    .map(([envelope, headers]): Shape => ({ path: '/acp', why: 'acp:other-call', body: { json: envelope }, headers })),
  fc.tuple(junkBodies('/acp'), acpHeaders(acpConnection)).map(([s, headers]) => ({ ...s, headers })),
  fc
    .tuple(deep, acpHeaders(fc.constant('<acp-connection>')))
    .map(([d, headers]): Shape => ({ path: '/acp', why: 'acp:deep-in-connection', body: { json: d }, headers })),
);
const acpGetOrDelete = acpHeaders(acpConnection).map((headers): Shape => ({
  path: '/acp',
  why: 'acp:no-body',
  headers: { ...headers, accept: 'text/event-stream' },
}));

// ── POST /api/approve ────────────────────────────────────────────────────────

const approveBodies = fc.oneof(
  // Well-formed but for approvals that do not exist: nothing is pending, so these change nothing.
  fc
    .record(
      {
        request_id: someText,
        decisions: fc.dictionary(someText, fc.constantFrom('accept', 'deny'), { minKeys: 1, maxKeys: 2 }),
        feedback: text,
      },
      { requiredKeys: ['request_id', 'decisions'] },
    )
    .map((body) => withBody('/api/approve')({ body, why: 'approve-unknown-request' })),
  invalid(fc.record({ request_id: someText, decisions: fc.constant({ call: 'accept' }) }), [
    put(
      'request-id-invalid',
      'request_id',
      fc.oneof(
        fc.constant(''),
        notString.filter((v) => v !== null),
      ),
    ),
    put(
      'decisions-invalid',
      'decisions',
      fc.oneof(
        notObject.filter((v) => v !== null),
        fc.constant({ call: 'maybe' }),
        fc.constant({ '': 'accept' }),
        fc.constant({ call: { edit: 5 } }),
      ),
    ),
    put('action-and-decisions', 'action', fc.constantFrom('accept', 'decline')),
    put(
      'feedback-invalid',
      'feedback',
      fc.oneof(
        notString.filter((v) => v !== null),
        huge(10_001, 50_000).filter((h) => h.unit === 'x'),
      ),
    ),
    unknownKey(['request_id', 'id', 'decisions', 'feedback', 'action', 'content']).chain((k) =>
      put('unknown-field', k, anyJson),
    ),
  ]).map(withBody('/api/approve')),
  junkBodies('/api/approve'),
);

// ── POST /api/runs/:id/fork and /replay (time travel) ──────────────────────────

/**
 * The run in the path never exists (the fuzz target has no runs), so even a valid body starts nothing: it is
 * 404 (`unknown-run`). The body is checked first (graph/timetravel/), so the invalid ones are 400s whatever the id.
 */
// A dot segment ("..", "%2e%2e") would take the request to another path (/api/fork), no longer this JSON route.
const runPath = (tail: string) =>
  idSegment.filter((id) => !/^(\.|%2e){1,2}$/i.test(id)).map((id) => `/api/runs/${id}/${tail}`);
const badModel = fc.oneof(
  fc.constantFrom('', 'has space', 'm'.repeat(201), 'caf\u00e9'),
  notString.filter((v) => v !== null),
);
const badRoleModels = fc.oneof(
  notObject.filter((v) => v !== null),
  fc.constantFrom({ wizard: 'gpt' }, { synthesizer: '' }, { verifier: 5 }, { planner: 'two words' }),
);

const FORK_KEYS = ['checkpoint', 'edit'];
const FORK_EDIT_KEYS = ['query', 'plan', 'outputs', 'model', 'models', 'stepModels'];
const forkTemplate: fc.Arbitrary<Json> = fc.record(
  {
    checkpoint: fc.oneof(
      fc.nat({ max: 99 }).map((n) => `cp-${n}`),
      someText,
    ),
    edit: fc.record(
      {
        query: freeText,
        outputs: fc.dictionary(fc.constantFrom('s1', 's2'), someText, { maxKeys: 2 }),
        model: fc.constantFrom('gpt-5-mini', 'scripted'),
        models: fc.constant({ verifier: 'gpt-5-mini' }),
        stepModels: fc.constant({ s1: 'gpt-5-mini' }),
        plan: fc.constant({
          rationale: 'r',
          steps: [{ id: 'a', specialist: 'writer', objective: 'o', dependsOn: [] }],
        }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['checkpoint'] },
);
const forkBodies = (path: string) =>
  fc.oneof(
    forkTemplate.map((body) => withBody(path)({ body, why: 'unknown-run' })),
    invalid(forkTemplate, [
      remove('checkpoint-missing', 'checkpoint'),
      put(
        'checkpoint-invalid',
        'checkpoint',
        fc.oneof(
          fc.constant(''),
          fc.constant('c'.repeat(65)),
          notString.filter((v) => v !== null),
        ),
      ),
      unknownKey(FORK_KEYS).chain((k) => put('unknown-field', k, anyJson)),
      put(
        'edit-not-object',
        'edit',
        notObject.filter((v) => v !== null),
      ),
      unknownKey(FORK_EDIT_KEYS).chain((k) => put('edit-unknown-field', `edit.${k}`, anyJson)),
      put(
        'edit-query-invalid',
        'edit.query',
        fc.oneof(
          fc.constantFrom('', '   ', 'q'.repeat(20_001)),
          notString.filter((v) => v !== null),
        ),
      ),
      put(
        'edit-outputs-invalid',
        'edit.outputs',
        fc.oneof(
          notObject.filter((v) => v !== null),
          fc.constantFrom({ s1: 5 }, { '': 'x' }, { s1: null }),
        ),
      ),
      put('edit-model-invalid', 'edit.model', badModel),
      put('edit-models-invalid', 'edit.models', badRoleModels),
      put('edit-stepModels-invalid', 'edit.stepModels', fc.oneof(badRoleModels, fc.constant({ s1: '' }))),
      ...encodingViolations('checkpoint'),
    ]).map(withBody(path)),
  );

const REPLAY_KEYS = ['model', 'models', 'specialists'];
const replayTemplate: fc.Arbitrary<Json> = fc.record(
  {
    model: fc.constantFrom('gpt-5-mini', 'scripted'),
    models: fc.constant({ specialist: 'gpt-5-mini' }),
    specialists: fc.array(fc.constantFrom('writer', 'researcher', 'database'), { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: [] },
);
const replayBodies = (path: string) =>
  fc.oneof(
    replayTemplate.map((body) => withBody(path)({ body, why: 'unknown-run' })),
    invalid(replayTemplate, [
      unknownKey(REPLAY_KEYS).chain((k) => put('unknown-field', k, anyJson)),
      put('model-invalid', 'model', badModel),
      put('models-invalid', 'models', badRoleModels),
      put(
        'specialists-invalid',
        'specialists',
        fc.oneof(
          notArray.filter((v) => v !== null),
          fc.constantFrom([], [''], [5], ['s'.repeat(201)]),
          fc.constant(Array.from({ length: 201 }, (_, i) => `s${i}`)),
        ),
      ),
      ...encodingViolations('model'),
    ]).map(withBody(path)),
  );

/** A near-valid row for a POST on a run: its body generator on a generated run id, junk bodies now and then. */
const onRun = (tail: string, bodies: (path: string) => fc.Arbitrary<Shape>): fc.Arbitrary<Shape> =>
  runPath(tail).chain((path) =>
    fc.oneof({ arbitrary: bodies(path), weight: 3 }, { arbitrary: junkBodies(path), weight: 1 }),
  );

// ── WebSocket /acp ───────────────────────────────────────────────────────────

/** After an initialize and a session/new (harmless: no run), one to three malformed frames. */
const wsFrames = fc
  .array(
    fc.oneof(
      // Text frames are UTF-8 strings: a BOM, Latin-1 or raw-surrogate encoding cannot be carried (the prompt would be valid).
      acpPrompt
        .filter((s) => !/encoding:(bom|latin1|lone-surrogate-raw)/.test(s.why))
        .map((s): Frame => ({ json: (s.body as { json: unknown }).json })),
      acpOtherCalls.map((json): Frame => ({ json })),
      anyJson.map((json): Frame => ({ json })),
      deep.map((json): Frame => ({ json })),
      fc.constantFrom('{', '[1,]', 'null', '\u0000', '{"jsonrpc":"2.0"').map((raw): Frame => ({ raw })),
      fc.integer({ min: 1, max: 4096 }).map((binary): Frame => ({ binary })),
      huge(1_100_000, 2_000_000)
        .filter((h) => h.unit === 'x')
        .map((json): Frame => ({ json })),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((frames): Shape => ({ path: '/acp', why: 'ws:frames', frames }));

// ── the table ────────────────────────────────────────────────────────────────

const withJunk = (path: string, near: fc.Arbitrary<Shape>) =>
  fc.oneof({ arbitrary: near, weight: 3 }, { arbitrary: junkBodies(path), weight: 1 });

export const ENDPOINTS: Endpoint[] = [
  // src/http/app.ts
  { id: 'GET /health', methods: ['GET'], protocol: 'rest', startsRuns: false, json: false, near: getShape('/health') },
  { id: 'GET /ready', methods: ['GET'], protocol: 'rest', startsRuns: false, json: false, near: getShape('/ready') },
  // src/protocols/sse/routes.ts
  {
    id: 'POST /stream',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: true,
    json: true,
    near: withJunk('/stream', streamBodies),
  },
  {
    id: 'GET /stream/:runId',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/stream/:runId', queryOf({ after: fc.oneof(fc.nat().map(String), text) })),
  },
  {
    id: 'POST /stream/:runId/cancel',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/stream/:runId/cancel'),
  },
  {
    id: 'GET /api/runs/:id/events',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/runs/:id/events', queryOf({ after: fc.oneof(fc.nat().map(String), text) })),
  },
  // src/protocols/sse/time-travel-routes.ts and eval-routes.ts
  {
    id: 'GET /api/runs/:id/checkpoints',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/runs/:id/checkpoints'),
  },
  {
    id: 'GET /api/runs/:id/checkpoints/:checkpoint',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/runs/:id/checkpoints/:checkpoint'),
  },
  {
    id: 'POST /api/runs/:id/fork',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: true,
    json: true,
    near: onRun('fork', forkBodies),
  },
  {
    id: 'POST /api/runs/:id/replay',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: true,
    json: true,
    near: onRun('replay', replayBodies),
  },
  {
    id: 'GET /api/runs/compare',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/runs/compare', queryOf({ a: fc.oneof(idSegment, text), b: fc.oneof(idSegment, text) })),
  },
  {
    id: 'GET /api/evals',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/evals', queryOf({ limit: fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), text) })),
  },
  {
    id: 'GET /api/evals/:id',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/evals/:id'),
  },
  // src/knowledge/routes.ts
  {
    id: 'GET /api/specialists',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape(
      '/api/specialists',
      queryOf({
        kind: fc.oneof(fc.constantFrom('prompt', 'mcp', 'a2a'), text),
        domain: text,
        available: fc.oneof(fc.constantFrom('true', 'false'), text),
        q: text,
      }),
    ),
  },
  {
    id: 'GET /api/memory',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape(
      '/api/memory',
      queryOf({
        q: fc.oneof(
          text,
          fc.constantFrom('', '   '),
          fc.integer({ min: 2_001, max: 6_000 }).map((n) => 'w'.repeat(n)),
        ),
        k: fc.oneof(fc.integer({ min: -5, max: 100 }).map(String), text),
      }),
    ),
  },
  {
    id: 'GET /api/runs',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape(
      '/api/runs',
      queryOf({
        limit: fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), text),
        status: fc.oneof(fc.constantFrom('completed', 'failed'), text),
        threadId: text,
      }),
    ),
  },
  {
    id: 'GET /api/runs/:id',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/runs/:id'),
  },
  // src/protocols/sse/threads.ts
  {
    id: 'GET /api/threads',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/threads', queryOf({ limit: fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), text) })),
  },
  {
    id: 'GET|DELETE /api/threads/:id',
    methods: ['GET', 'DELETE'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/threads/:id'),
  },
  {
    id: 'GET /api/decisions',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape(
      '/api/decisions',
      queryOf({ limit: fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), text) }),
    ),
  },
  {
    id: 'GET /api/decisions/:id',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/decisions/:id'),
  },
  {
    id: 'GET /mcp/config',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/mcp/config'),
  },
  {
    id: 'GET /mcp/tools',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/mcp/tools', queryOf({ server: text })),
  },
  {
    id: 'GET /mcp/servers',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/mcp/servers'),
  },
  {
    id: 'POST /mcp/reload',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/mcp/reload'),
  },
  // src/hitl/routes.ts
  { id: 'POST /api/approve', methods: ['POST'], protocol: 'rest', startsRuns: false, json: true, near: approveBodies },
  {
    id: 'GET /api/approvals',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/approvals', queryOf({ runId: text })),
  },
  {
    id: 'GET /api/approvals/:id',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/api/approvals/:id'),
  },
  // src/protocols/agui/routes.ts
  {
    id: 'POST /ag-ui',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: true,
    json: true,
    near: withJunk('/ag-ui', aguiBodies),
  },
  {
    id: 'GET /ag-ui/capabilities',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: getShape('/ag-ui/capabilities'),
  },
  // src/protocols/openai/routes.ts
  {
    id: 'POST /v1/chat/completions',
    methods: ['POST'],
    protocol: 'openai',
    startsRuns: true,
    json: true,
    near: withJunk('/v1/chat/completions', chatBodies),
  },
  {
    id: 'GET /v1/models',
    methods: ['GET'],
    protocol: 'openai',
    startsRuns: false,
    json: false,
    near: getShape('/v1/models'),
  },
  // src/protocols/a2a/routes.ts
  {
    id: 'GET /.well-known/agent-card.json',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: fc
      .tuple(
        getShape('/.well-known/agent-card.json'),
        fc.constantFrom<Record<string, string>>(
          {},
          { 'a2a-version': '1.0' },
          { 'a2a-version': '0.3' },
          { 'a2a-version': 'x' },
          { 'if-none-match': '"x"' },
        ),
      )
      .map(([s, headers]) => ({ ...s, headers })),
  },
  { id: 'POST /a2a', methods: ['POST'], protocol: 'a2a', startsRuns: true, json: true, near: a2aBodies },
  // src/protocols/a2a/rest.ts (the HTTP+JSON binding, below /a2a/rest)
  {
    id: 'POST /a2a/rest/message:send',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: true,
    json: true,
    near: a2aRestSend('/a2a/rest/message:send'),
  },
  {
    id: 'POST /a2a/rest/message:stream',
    methods: ['POST'],
    protocol: 'rest',
    startsRuns: true,
    json: true,
    near: a2aRestSend('/a2a/rest/message:stream'),
  },
  {
    id: 'GET /a2a/rest/tasks',
    methods: ['GET'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: fc
      .tuple(
        getShape('/a2a/rest/tasks', a2aRestQuery),
        fc.constantFrom<Record<string, string>>({}, { 'a2a-version': '1.0' }),
      )
      .map(([s, headers]) => ({ ...s, headers })),
  },
  {
    id: 'GET /a2a/rest/tasks/:id',
    methods: ['GET', 'POST'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: fc
      .tuple(
        getShape('/a2a/rest/:tenant/tasks/:id', a2aRestQuery),
        idSegment.map((id) => shape(`/a2a/rest/tasks/${id}:cancel`, 'cancel')),
        idSegment.map((id) => shape(`/a2a/rest/tasks/${id}:subscribe`, 'subscribe')),
        fc.constantFrom<Record<string, string>>({}, { 'a2a-version': '1.0' }),
      )
      .chain(([get, cancel, subscribe, headers]) =>
        fc.constantFrom(get, cancel, subscribe).map((s) => ({ ...s, headers })),
      ),
  },
  // src/protocols/mcp/http.ts (mounted at /mcp)
  {
    id: 'ALL /mcp',
    methods: ['POST', 'GET', 'DELETE'],
    protocol: 'mcp',
    startsRuns: true,
    json: true,
    near: mcpBodies,
  },
  // src/protocols/acp/http.ts
  { id: 'POST /acp', methods: ['POST'], protocol: 'acp', startsRuns: true, json: true, near: acpBodies },
  {
    id: 'GET|DELETE /acp',
    methods: ['GET', 'DELETE'],
    protocol: 'acp',
    startsRuns: false,
    json: false,
    near: acpGetOrDelete,
  },
  // src/protocols/acp/ws.ts (the Node server's upgrade event)
  { id: 'WS /acp', methods: ['GET'], protocol: 'ws', startsRuns: true, json: false, near: wsFrames },
  // Paths no route serves (and the OAuth discovery paths MCP clients probe: issue 12 §2).
  {
    id: 'no route',
    methods: ['GET', 'POST'],
    protocol: 'rest',
    startsRuns: false,
    json: false,
    near: fc
      .oneof(
        fc.constantFrom(
          '/.well-known/oauth-authorization-server',
          '/.well-known/oauth-protected-resource',
          '/.well-known/oauth-protected-resource/mcp',
          '/.well-known/openid-configuration',
          '/a2a/',
          '/api',
          '/v1',
          '/stream/',
          '//health',
          '/%2e%2e/%2e%2e/etc/passwd',
          '/favicon.ico',
        ),
        idSegment.map((s) => `/${s}`),
      )
      .map((path) => shape(path, 'no-route')),
  },
];

/** The OAuth discovery paths that must answer 404 (issue 12 §2). */
export const isOAuthDiscovery = (path: string) => /^\/\.well-known\/(oauth-|openid-configuration)/.test(path);
