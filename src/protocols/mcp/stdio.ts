/**
 * MCP over stdio (`parley mcp`): the SDK's `serveStdio` on the process's stdin/stdout, which picks the
 * revision from the client's first message: a 2025 `initialize` pins a session server as before; a
 * 2026-07-28 request (per-request `_meta`) a stateless one, with `server/discover`, approvals as
 * `input_required` rounds and `subscriptions/listen`. One factory for both. Logs must go to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createParleyMcpServer, type McpServerDeps } from './server.ts';
import { checkParams } from './params.ts';

export interface McpStdioDeps extends McpServerDeps {
  stdin?: Readable;
  stdout?: Writable;
}

export async function serveMcpStdio(deps: McpStdioDeps): Promise<{ close(): Promise<void>; closed: Promise<void> }> {
  const transport = new StdioServerTransport(deps.stdin, deps.stdout);
  const handle = serveStdio(({ era }) => createParleyMcpServer({ ...deps, era }), {
    transport,
    onerror: (err) => deps.logger.debug('mcp: stdio message refused or failed', { error: err.message }),
  });
  // serveStdio has set the transport's handlers: the params check goes in front, the close is observed.
  checkParams(transport);
  const closed = new Promise<void>((resolve) => {
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      resolve();
    };
  });
  return { close: () => handle.close(), closed };
}
