/**
 * `parley acp` as a bridge (docs/service.md): the editor's newline-delimited JSON-RPC on stdin/stdout,
 * forwarded message by message to the service's /acp WebSocket and back. The WebSocket side is the
 * ACP SDK's own stream (createWebSocketStream: framing, batches refused, close handling); the stdio side
 * only splits lines and parses them, nothing of JSON-RPC: the agent, its sessions and runs live in the
 * service, which answers every message. (The SDK's ndJsonStream would do the same but lives in the SDK's
 * main entry, whose schemas cost the bridge most of its start-up time and ~10 MB: docs/performance.md.)
 * Ends when the editor closes stdin (the WebSocket closes with it) or the service goes away; then every
 * request still unanswered gets a JSON-RPC error at once and the bridge exits (docs/service.md).
 */
import { createInterface } from 'node:readline';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import type * as WsClient from '@agentclientprotocol/sdk/experimental/ws-client';
import type * as Ws from 'ws';
import type { ServiceConnection } from './service-client.ts';

/**
 * Loads what the bridge needs, then returns it ready to run: loading comes first so that a service
 * just found (or started) is connected to at once, before an idle one could exit in between.
 */
export async function loadAcpBridge(): Promise<(service: ServiceConnection) => Promise<number>> {
  const [{ createWebSocketStream }, { WebSocket }] = await Promise.all([
    import('@agentclientprotocol/sdk/experimental/ws-client'),
    import('ws'),
  ]);
  return (service) => bridgeAcp(service, createWebSocketStream, WebSocket);
}

async function bridgeAcp(
  service: ServiceConnection,
  createWebSocketStream: typeof WsClient.createWebSocketStream,
  WebSocket: typeof Ws.WebSocket,
): Promise<number> {
  const url = new URL('/acp', service.record.url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const agent = createWebSocketStream(url.href, {
    WebSocket,
    headers: { Authorization: `Bearer ${service.token}` },
    cookies: 'omit',
  });

  // Requests of the editor the service has not answered yet: if the service goes away (`parley stop`,
  // a crash, another window's client killing it), each is answered with an error at once, never left
  // waiting (issue 31); the bridge then exits and the editor starts it again, which finds or starts a
  // service and can `session/load` its sessions.
  const pending = new Map<string | number, string>();
  const toAgent = (async () => {
    const writer = agent.writable.getWriter();
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      let message: AnyMessage;
      try {
        message = JSON.parse(line) as AnyMessage;
      } catch {
        process.stderr.write(`parley acp: skipped a line from the client that is not JSON: ${line.slice(0, 80)}\n`);
        continue;
      }
      const { id, method } = message as { id?: unknown; method?: unknown };
      if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) pending.set(id, method);
      await writer.write(message);
    }
    await writer.close();
    return 'editor' as const;
  })();
  const toEditor = agent.readable
    .pipeTo(
      new WritableStream<AnyMessage>({
        write: (message) => {
          const { id, method } = message as { id?: unknown; method?: unknown };
          if (method === undefined && (typeof id === 'string' || typeof id === 'number')) pending.delete(id);
          return writeLine(message);
        },
      }),
    )
    .then(() => 'service' as const);
  let ended: 'editor' | 'service';
  let why = 'it closed the connection';
  try {
    ended = await Promise.race([toAgent, toEditor]);
  } catch (err) {
    ended = 'service';
    why = err instanceof Error ? err.message : String(err);
  }
  if (ended === 'editor') return 0;
  const gone = `the Parley service (${service.record.url}, pid ${service.record.pid}) went away: ${why}`;
  for (const [id, method] of pending) {
    await writeLine({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `${method} was not answered: ${gone}; restart the agent to reconnect` },
    } as AnyMessage);
  }
  process.stderr.write(
    `parley acp: ${gone}${pending.size ? `; answered ${pending.size} pending request(s) with an error` : ''}\n`,
  );
  // The editor's stdin would keep this process alive: the bridge is done, so it exits and the editor sees it.
  process.stdin.destroy();
  return 1;
}

const writeLine = (message: AnyMessage) =>
  new Promise<void>((done, failed) =>
    process.stdout.write(JSON.stringify(message) + '\n', (err) => (err ? failed(err) : done())),
  );
