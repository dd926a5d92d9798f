/**
 * `parley mcp` as a bridge (docs/service.md): the client's stdio messages forwarded to the service's
 * Streamable HTTP endpoint (/mcp) and back: a proxy of messages, not a second MCP server. The MCP
 * session, its tools and runs live in the service, which answers every message.
 *
 * Raw JSON-RPC over node:http with one keep-alive agent, SSE read by eventsource-parser: the MCP client
 * SDK (its schemas) and fetch (undici) cost the bridge most of its start-up time and ~15 MB
 * (docs/performance.md, "The stdio bridges"). What the SDK's StreamableHTTPClientTransport does for a
 * proxy, this does the same way: the session id from the initialize answer, the negotiated
 * MCP-Protocol-Version on later requests, the GET stream for the server's own messages once the client
 * is initialized, resuming a stream with Last-Event-ID, and for a 2026-07-28 client (no session: each
 * message carries its revision in `_meta`) the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers
 * derived from the message. Ends when the client closes stdin (the session is deleted) or the service
 * goes away.
 */
import { Agent, request, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { createParser } from 'eventsource-parser';
import type { ServiceConnection } from './service-client.ts';

/** One JSON-RPC message as the bridge reads it: only the fields it routes by. */
interface Message {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: { _meta?: Record<string, unknown> } & Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

/** Where a 2026-07-28 client's `_meta` names its revision (the spec's io.modelcontextprotocol/protocolVersion). */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
const FIRST_MODERN_VERSION = '2026-07-28';
/** The body field the Mcp-Name header mirrors, per method (SEP-2243). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
/** Resuming a stream: the SDK transport's defaults (1 s, ×1.5, at most 30 s, 2 attempts). */
const RECONNECT = { initialMs: 1000, growth: 1.5, maxMs: 30_000, attempts: 2 };

/** Loads nothing more: kept so via-service.ts loads every bridge the same way (bridge-acp.ts). */
export async function loadMcpBridge(): Promise<(service: ServiceConnection) => Promise<number>> {
  return (service) => bridgeMcp(service);
}

const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isResponse = (m: Message) => m.method === undefined && ('result' in m || 'error' in m);
const isMessage = (v: unknown): v is Message =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (v as Message).jsonrpc === '2.0';

/** A header value as the SDK encodes it: plain printable ASCII as is, anything else as =?base64?…?=. */
function headerValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value);
  if (plain && !(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The 2026-07-28 revision a request claims in its `_meta`, if any. */
function envelopeVersion(message: Message): string | undefined {
  if (!isRequest(message)) return undefined;
  const version = message.params?._meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

async function bridgeMcp(service: ServiceConnection): Promise<number> {
  const url = new URL('/mcp', service.record.url);
  const agent = new Agent({ keepAlive: true });
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let initializeId: Message['id'];
  let failure: string | undefined;
  let ended = false;
  let serverRetryMs: number | undefined;
  const open = new Set<{ destroy(): void }>();

  const toClient = (message: unknown) =>
    new Promise<void>((done) => process.stdout.write(JSON.stringify(message) + '\n', () => done()));

  /** A message from the service: the initialize answer sets the version later requests carry. */
  const fromService = (message: unknown) => {
    if (!isMessage(message)) return;
    if (initializeId !== undefined && isResponse(message) && message.id === initializeId) {
      const version = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (typeof version === 'string') protocolVersion = version;
    }
    // The editor's stdout gone ends the bridge through stdin's close.
    void toClient(message);
  };

  const headers = (extra: OutgoingHttpHeaders = {}): OutgoingHttpHeaders => ({
    authorization: `Bearer ${service.token}`,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
    ...extra,
  });

  const send = (method: 'GET' | 'POST' | 'DELETE', head: OutgoingHttpHeaders, body?: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(url, { method, agent, headers: head }, (res) => {
        open.add(res);
        res.once('close', () => open.delete(res));
        resolve(res);
      });
      open.add(req);
      req.once('close', () => open.delete(req));
      req.once('error', reject);
      req.end(body);
    });

  const text = (res: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let out = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (out += chunk));
      res.once('end', () => resolve(out));
      res.once('error', () => resolve(out));
    });

  /**
   * Reads an SSE response, each message to the client. With `resumable` (the GET stream, or a
   * stream that sent event ids) an end without a response is resumed from the last event id.
   */
  const readStream = (res: IncomingMessage, resumable: boolean): void => {
    let lastEventId: string | undefined;
    let answered = false;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id) lastEventId = event.id;
        if (!event.data || (event.event && event.event !== 'message')) return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          failure = 'the service sent an event that is not JSON';
          return;
        }
        if (isMessage(message) && isResponse(message)) answered = true;
        fromService(message);
      },
      onRetry: (ms) => (serverRetryMs = ms),
    });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.feed(chunk));
    let over = false;
    const finished = () => {
      if (over) return;
      over = true;
      if (ended || answered || !(resumable || lastEventId !== undefined)) return;
      resume(lastEventId, 0);
    };
    res.once('end', finished);
    res.once('error', (err) => {
      if (!ended) failure = `SSE stream disconnected: ${err.message}`;
      finished();
    });
  };

  /** Opens the GET stream (the server's own messages), from `lastEventId` when resuming one. */
  const listen = async (lastEventId?: string): Promise<void> => {
    const res = await send(
      'GET',
      headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
    );
    if (res.statusCode === 405) return void (await text(res)); // the service offers no GET stream
    if ((res.statusCode ?? 500) >= 300) {
      await text(res);
      throw new Error(`Failed to open SSE stream: ${res.statusMessage ?? res.statusCode}`);
    }
    readStream(res, true);
  };

  const resume = (lastEventId: string | undefined, attempt: number) => {
    if (attempt >= RECONNECT.attempts) {
      failure = `Maximum reconnection attempts (${RECONNECT.attempts}) exceeded.`;
      return;
    }
    const delay = serverRetryMs ?? Math.min(RECONNECT.initialMs * RECONNECT.growth ** attempt, RECONNECT.maxMs);
    setTimeout(() => {
      if (ended) return;
      listen(lastEventId).catch((err: unknown) => {
        failure = `Failed to reconnect SSE stream: ${(err as Error).message}`;
        resume(lastEventId, attempt + 1);
      });
    }, delay).unref();
  };

  /** POSTs one client message; the answer (JSON or an SSE stream) goes to the client. Throws when the service did not take it. */
  const post = async (message: Message): Promise<void> => {
    const version = envelopeVersion(message);
    const initialize = message.method === 'initialize' && isRequest(message);
    const head = headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    if (initialize) delete head['mcp-session-id'];
    if (version !== undefined) {
      head['mcp-protocol-version'] = version;
      head['mcp-method'] = message.method;
      const field = NAME_FIELD[message.method!];
      const name = field ? message.params?.[field] : undefined;
      if (typeof name === 'string') head['mcp-name'] = headerValue(name);
    }
    const res = await send('POST', head, JSON.stringify(message));
    const status = res.statusCode ?? 500;
    if (initialize && status < 300) {
      const id = res.headers['mcp-session-id'];
      sessionId = typeof id === 'string' ? id : undefined;
    }
    if (status >= 300) {
      const body = await text(res);
      // A 2026-07-28 request refused with a JSON-RPC error for it: that error is the answer.
      if (status === 400 && version !== undefined && version >= FIRST_MODERN_VERSION) {
        try {
          const parsed: unknown = JSON.parse(body);
          if (isMessage(parsed) && isResponse(parsed) && parsed.id === message.id) return fromService(parsed);
        } catch {
          // not JSON: reported below
        }
      }
      throw new Error(`Error POSTing to endpoint: ${body || res.statusMessage || status}`);
    }
    if (status === 202) {
      await text(res);
      if (message.method === 'notifications/initialized')
        listen().catch((err: unknown) => (failure = (err as Error).message));
      return;
    }
    if (!isRequest(message)) return void (await text(res));
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'text/event-stream') return readStream(res, false);
    const body = await text(res);
    if (type !== 'application/json') throw new Error(`Unexpected content type: ${type}`);
    const data: unknown = JSON.parse(body);
    for (const m of Array.isArray(data) ? data : [data]) fromService(m);
  };

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`parley mcp: skipped a message that is not JSON-RPC: ${line.slice(0, 80)}\n`);
      continue;
    }
    if (!isMessage(message)) {
      process.stderr.write(`parley mcp: skipped a message that is not JSON-RPC: ${line.slice(0, 80)}\n`);
      continue;
    }
    if (message.method === 'initialize' && isRequest(message)) initializeId = message.id;
    const sent = message;
    post(sent).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      failure = reason;
      // A request must not wait forever on a service that is gone: answer it with the reason.
      if (isRequest(sent))
        void toClient({
          jsonrpc: '2.0',
          id: sent.id,
          error: { code: -32603, message: `The Parley service (${service.record.url}) did not answer: ${reason}` },
        });
    });
  }
  // The client closed stdin: end the session (a service already gone has none to end).
  ended = true;
  if (sessionId) await send('DELETE', headers()).then(text, () => undefined);
  for (const stream of open) stream.destroy();
  agent.destroy();
  if (failure) process.stderr.write(`parley mcp: ${failure}\n`);
  return 0;
}
