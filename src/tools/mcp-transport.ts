/**
 * The client transport for one configured MCP server: stdio (the server's stderr goes to onStderr,
 * so its pipe never fills), Streamable HTTP, or legacy SSE. Used by ingestion's discovery and by the
 * live tool connections, so both reach a server the same way (headers included).
 */
import { SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerConfig } from './mcp-config.ts';

export function createMcpTransport(server: McpServerConfig, onStderr: (text: string) => void): Transport {
  if (server.transport === 'stdio') {
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
    return transport;
  }
  const requestInit: RequestInit = { headers: server.headers };
  return server.transport === 'sse'
    ? new SSEClientTransport(new URL(server.url), {
        requestInit,
        eventSourceInit: { fetch: withHeaders(server.headers) },
      })
    : new StreamableHTTPClientTransport(new URL(server.url), { requestInit });
}

/** The SSE GET stream is opened by EventSource, which does not see requestInit: pass headers there too. */
function withHeaders(headers: Record<string, string>) {
  return (url: string | URL, init?: RequestInit) =>
    fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } });
}
