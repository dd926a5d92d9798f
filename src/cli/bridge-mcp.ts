/**
 * `parley mcp` as a bridge (docs/service.md): the client's stdio messages forwarded to the service's
 * Streamable HTTP endpoint (/mcp) and back: a proxy of messages, not a second MCP server. The HTTP side
 * is the SDK's StreamableHTTPClientTransport; the stdio side is the SDK's own stdio framing (ReadBuffer,
 * serializeMessage: what its StdioServerTransport is made of), taken from the client package so the
 * bridge loads one MCP SDK, not two (start-up and RSS: docs/performance.md). The MCP session, its tools
 * and runs live in the service. Ends when the client closes stdin (the session is deleted) or the
 * service goes away. A 2026-07-28 client has no session: each message carries its revision in `_meta`,
 * from which the SDK transport sets the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, so the
 * bridge forwards it unchanged (approval rounds and `subscriptions/listen` streams included).
 */
import type * as McpClient from '@modelcontextprotocol/client';
import type { JSONRPCMessage, ReadBuffer as SdkReadBuffer } from '@modelcontextprotocol/client';
import type { ServiceConnection } from './service-client.ts';

/** Loads the MCP client SDK, then returns the bridge ready to run (see loadAcpBridge for why in this order). */
export async function loadMcpBridge(): Promise<(service: ServiceConnection) => Promise<number>> {
  const sdk = await import('@modelcontextprotocol/client');
  return (service) => bridgeMcp(service, sdk);
}

async function bridgeMcp(service: ServiceConnection, sdk: typeof McpClient): Promise<number> {
  const { ReadBuffer, serializeMessage, StreamableHTTPClientTransport, isJSONRPCRequest, isJSONRPCResultResponse } =
    sdk;
  const client = stdioSide(ReadBuffer, serializeMessage);
  const parley = new StreamableHTTPClientTransport(new URL('/mcp', service.record.url), {
    requestInit: { headers: { Authorization: `Bearer ${service.token}` } },
  });
  let initializeId: string | number | undefined;
  let failure: string | undefined;
  const ended = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
    parley.onclose = () => resolve();
  });

  parley.onmessage = (message: JSONRPCMessage) => {
    // Later requests carry the negotiated version in MCP-Protocol-Version, as the SDK's Client would set it.
    if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') parley.setProtocolVersion(version);
    }
    // The editor's stdout is gone: the bridge ends with it (client.onclose).
    void client.send(message).catch(() => undefined);
  };
  parley.onerror = (err) => {
    failure = err.message;
  };
  client.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeId = message.id;
    parley.send(message).catch((err: unknown) => {
      // A request must not wait forever on a service that is gone: answer it with the reason.
      if (isJSONRPCRequest(message)) {
        const reason = err instanceof Error ? err.message : String(err);
        void client
          .send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32603, message: `The Parley service (${service.record.url}) did not answer: ${reason}` },
          })
          // The editor's stdout is gone too: nobody is left to answer.
          .catch(() => undefined);
      }
    });
  };

  await parley.start();
  client.start();
  await ended;
  // Ending anyway: a service already gone has no session to end.
  await parley.terminateSession().catch(() => undefined);
  await parley.close().catch(() => undefined);
  if (failure) process.stderr.write(`parley mcp: ${failure}\n`);
  return 0;
}

interface StdioSide {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  send(message: JSONRPCMessage): Promise<void>;
  start(): void;
}

/** The client's side on stdin/stdout, framed by the SDK; a line that is no JSON-RPC message is skipped with a note. */
function stdioSide(ReadBuffer: typeof SdkReadBuffer, serialize: (message: JSONRPCMessage) => string): StdioSide {
  const buffer = new ReadBuffer();
  const side: StdioSide = {
    send: (message) =>
      new Promise<void>((done, failed) =>
        process.stdout.write(serialize(message), (err) => (err ? failed(err) : done())),
      ),
    start() {
      process.stdin.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (err) {
            process.stderr.write(`parley mcp: skipped a message that is not JSON-RPC: ${(err as Error).message}\n`);
            continue;
          }
          if (!message) break;
          side.onmessage?.(message);
        }
      });
      process.stdin.once('end', () => side.onclose?.());
      process.stdin.once('close', () => side.onclose?.());
    },
  };
  return side;
}
