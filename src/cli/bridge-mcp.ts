/**
 * `parley mcp` as a bridge (docs/service.md): the client's stdio messages forwarded to the service's
 * Streamable HTTP endpoint (/mcp) and back, one SDK transport on each side (StdioServerTransport,
 * StreamableHTTPClientTransport): a proxy of messages, not a second MCP server. The MCP session, its
 * tools and runs live in the service. Ends when the client closes stdin (the session is deleted) or
 * the service goes away.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { ServiceConnection } from './service-client.ts';

export async function bridgeMcp(service: ServiceConnection): Promise<number> {
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport, isJSONRPCRequest, isJSONRPCResultResponse }] =
    await Promise.all([import('@modelcontextprotocol/server/stdio'), import('@modelcontextprotocol/client')]);
  const client = new StdioServerTransport();
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
          .catch(() => undefined);
      }
    });
  };

  await parley.start();
  await client.start();
  await ended;
  await parley.terminateSession().catch(() => undefined);
  await Promise.all([parley.close(), client.close()]).catch(() => undefined);
  if (failure) process.stderr.write(`parley mcp: ${failure}\n`);
  return 0;
}
