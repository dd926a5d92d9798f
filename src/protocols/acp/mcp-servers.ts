/**
 * The MCP servers a client passes in `session/new`, as an mcp_config.json `mcpServers` map (the same
 * loader validates them): stdio with its env, Streamable HTTP and SSE with their headers.
 */
import { RequestError, type McpServer } from '@agentclientprotocol/sdk';
import type { McpServerSpec } from '../../graph/contract.ts';

type ServerMap = Record<string, McpServerSpec>;

export function mcpServerMap(servers: McpServer[]): ServerMap {
  const map: ServerMap = {};
  for (const server of servers) {
    if (map[server.name])
      throw RequestError.invalidParams({ field: 'mcpServers' }, `two MCP servers are named "${server.name}"`);
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
