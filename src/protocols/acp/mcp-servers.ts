/**
 * The MCP servers a client passes in `session/new`, as an mcp_config.json `mcpServers` map (the same
 * loader validates them): stdio with its env, Streamable HTTP and SSE with their headers.
 */
import { RequestError, type McpServer } from '@agentclientprotocol/sdk';
import type { McpServerSpec } from '../../graph/contract.ts';

type ServerMap = Record<string, McpServerSpec>;

/**
 * `local`: the client runs on this machine (stdio), so starting its stdio servers runs its own commands.
 * A remote client (HTTP, WebSocket) may only attach http/sse servers: a command it names would run on
 * Parley's host. `${VAR}` is refused everywhere: Parley's environment is not the client's to read.
 */
export function mcpServerMap(servers: McpServer[], local: boolean): ServerMap {
  const map: ServerMap = {};
  for (const server of servers) {
    if (map[server.name])
      throw RequestError.invalidParams({ field: 'mcpServers' }, `two MCP servers are named "${server.name}"`);
    if (JSON.stringify(server).includes('${'))
      throw RequestError.invalidParams(
        { field: 'mcpServers', server: server.name },
        `MCP server "${server.name}": "\${…}" is not expanded for client servers; pass the values themselves`,
      );
    const stdio = !('type' in server && (server.type === 'http' || server.type === 'sse'));
    if (stdio && !local)
      throw RequestError.invalidParams(
        { field: 'mcpServers', server: server.name },
        `MCP server "${server.name}": stdio servers are started only for a local editor (parley acp); attach it over http or sse`,
      );
    map[server.name] =
      'type' in server && (server.type === 'http' || server.type === 'sse')
        ? { type: server.type, url: server.url, headers: headerMap(server.headers) }
        : {
            command: server.command,
            args: server.args,
            env: Object.fromEntries(server.env.map((v) => [v.name, v.value])),
          };
  }
  return map;
}

const headerMap = (headers: { name: string; value: string }[]) =>
  Object.fromEntries(headers.map((h) => [h.name, h.value]));
