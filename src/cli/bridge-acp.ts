/**
 * `parley acp` as a bridge (docs/service.md): the editor's newline-delimited JSON-RPC on stdin/stdout,
 * forwarded message by message to the service's /acp WebSocket and back. The WebSocket side is the
 * ACP SDK's own stream (createWebSocketStream: framing, batches refused, close handling); the stdio side
 * only splits lines and parses them, nothing of JSON-RPC: the agent, its sessions and runs live in the
 * service, which answers every message. (The SDK's ndJsonStream would do the same but lives in the SDK's
 * main entry, whose schemas cost the bridge most of its start-up time and ~10 MB: docs/performance.md.)
 * Ends when the editor closes stdin (the WebSocket closes with it) or the service goes away.
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
      await writer.write(message);
    }
    await writer.close();
  })();
  const toEditor = agent.readable.pipeTo(
    new WritableStream<AnyMessage>({
      write: (message) =>
        new Promise<void>((done, failed) =>
          process.stdout.write(JSON.stringify(message) + '\n', (err) => (err ? failed(err) : done())),
        ),
    }),
  );
  try {
    await Promise.race([toAgent, toEditor]);
    return 0;
  } catch (err) {
    process.stderr.write(
      `parley acp: the connection to the Parley service (${service.record.url}, pid ${service.record.pid}) ended: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}
