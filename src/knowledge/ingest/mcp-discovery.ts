/**
 * Discovery: connect to one configured MCP server with the MCP client SDK, page through
 * `tools/list`, disconnect. Live connections for tool calls belong to src/tools/; this only learns
 * what a server offers.
 */
import { Client, type Tool } from '@modelcontextprotocol/client';
import { createMcpTransport } from '../../tools/mcp-transport.ts';
import type { McpServerConfig } from '../../tools/mcp-config.ts';

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
  // The last lines of a stdio server's stderr explain why it failed to start.
  const transport = createMcpTransport(server, (text) => {
    stderr.push(text);
    if (stderr.length > 20) stderr.shift();
  });
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
    // The discovery's own result or error is what counts; a server already gone needs no closing.
    await client.close().catch(() => undefined);
  }
}
