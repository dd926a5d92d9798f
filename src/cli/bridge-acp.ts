/**
 * `parley acp` as a bridge (docs/service.md): the editor's newline-delimited JSON-RPC on stdin/stdout,
 * forwarded message by message to the service's /acp WebSocket and back, with the SDK's own streams on
 * both sides (ndJsonStream, createWebSocketStream). The agent, its sessions and runs live in the service.
 * Ends when the editor closes stdin (the WebSocket closes with it) or the service goes away.
 */
import { Readable, Writable } from 'node:stream';
import type { ServiceConnection } from './service-client.ts';

export async function bridgeAcp(service: ServiceConnection): Promise<number> {
  const [{ ndJsonStream }, { createWebSocketStream }, { WebSocket }] = await Promise.all([
    import('@agentclientprotocol/sdk'),
    import('@agentclientprotocol/sdk/experimental/ws-client'),
    import('ws'),
  ]);
  const editor = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const url = new URL('/acp', service.record.url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const agent = createWebSocketStream(url.href, {
    WebSocket,
    headers: { Authorization: `Bearer ${service.token}` },
    cookies: 'omit',
  });
  const toAgent = editor.readable.pipeTo(agent.writable);
  const toEditor = agent.readable.pipeTo(editor.writable);
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
