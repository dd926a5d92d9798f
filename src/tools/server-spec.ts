/**
 * The servers McpToolHost connects: the loaded mcp_config.json (tools/mcp-config.ts
 * validates it, expands `${VAR}` and resolves defaults), or a raw `mcpServers` map as written in
 * that file, which goes through the same loader so both read servers the same way.
 */
import type { z } from 'zod';
import { parseMcpConfig, type McpServerConfig, type McpServerSchema } from './mcp-config.ts';

/** One `mcpServers` entry as written in mcp_config.json. */
export type McpServerSpec = z.input<typeof McpServerSchema>;

export type McpServers = McpServerConfig[] | Record<string, McpServerSpec>;

/** Validated server configs; a raw map that does not validate throws McpConfigError naming the field. */
export function normalizeServers(servers: McpServers): McpServerConfig[] {
  if (Array.isArray(servers)) return servers;
  return parseMcpConfig(JSON.stringify({ mcpServers: servers })).servers;
}
