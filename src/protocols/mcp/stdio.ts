/** MCP over stdio (`parley mcp`): one McpServer on the process's stdin/stdout. Logs must go to stderr. */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createParleyMcpServer, type McpServerDeps } from './server.ts';
import { checkParams } from './params.ts';

export interface McpStdioDeps extends McpServerDeps {
  stdin?: Readable;
  stdout?: Writable;
}

export async function serveMcpStdio(deps: McpStdioDeps): Promise<{ close(): Promise<void>; closed: Promise<void> }> {
  const server = createParleyMcpServer(deps);
  const transport = new StdioServerTransport(deps.stdin, deps.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  checkParams(transport);
  return { close: () => server.close(), closed };
}
