/**
 * Discovery: connect to one configured MCP server with the MCP client SDK, page through
 * `tools/list`, disconnect. Live connections for tool calls belong to src/tools/; this only learns
 * what a server offers.
 */
import { Client, SSEClientTransport, StreamableHTTPClientTransport, type Tool, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerConfig } from './mcp-config.ts';

export interface DiscoveredServer {
  tools: Tool[];
  /** What the server says about itself at initialize (name, version, instructions). */
  serverName?: string;
  serverVersion?: string;
  instructions?: string;
}

const MAX_PAGES = 50;

export async function discoverServer(server: McpServerConfig, timeoutMs: number): Promise<DiscoveredServer> {
  const client = new Client({ name: 'parley-ingest', version: '0.1.0' });
  const stderr: string[] = [];
  const transport = transportFor(server, stderr);
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    const info = client.getServerVersion();
    return { tools, serverName: info?.name, serverVersion: info?.version, instructions: client.getInstructions() };
  } catch (err) {
    // A stdio server that dies at start explains why on stderr; keep the last of it.
    const tail = stderr.join('').trim().split('\n').slice(-3).join(' | ');
    const message = (err as Error).message || String(err);
    throw new Error(tail ? `${message} (stderr: ${tail.slice(0, 500)})` : message, { cause: err });
  } finally {
    await client.close().catch(() => undefined);
  }
}

function transportFor(server: McpServerConfig, stderr: string[]): Transport {
  if (server.transport === 'stdio') {
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(chunk.toString());
      if (stderr.length > 20) stderr.shift();
    });
    return transport;
  }
  const requestInit: RequestInit = { headers: server.headers };
  return server.transport === 'sse'
    ? new SSEClientTransport(new URL(server.url), { requestInit, eventSourceInit: { fetch: withHeaders(server.headers) } })
    : new StreamableHTTPClientTransport(new URL(server.url), { requestInit });
}

/** The SSE GET stream is opened by EventSource, which does not see requestInit: pass headers there too. */
function withHeaders(headers: Record<string, string>) {
  return (url: string | URL, init?: RequestInit) =>
    fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } });
}
