/**
 * A session's own tools, handed to its runs (RunOptions.tools): the project (server `project`: the
 * editor's fs/terminal when the client offers them, else the folder on disk) and the MCP servers the
 * client passed for the session (server ids as the client named them). They go through the same
 * approval guard as every tool; close() stops the session's MCP servers.
 */
import type { Config } from '../config.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { ProjectClient } from './project/client.ts';
import { createProjectTools, PROJECT_SERVER } from './project/host.ts';
import { localProjectClient } from './project/local-client.ts';
import { McpToolHost } from './mcp-host.ts';
import type { McpServerSpec } from './server-spec.ts';
import type { ToolHost } from './types.ts';

export interface SessionToolsSpec {
  /** The session's project folder (absolute): relative paths resolve here, nothing outside it without approval. */
  root: string;
  /** The editor's file and terminal methods; absent: the folder on disk when `disk` allows it, else no project tools. */
  client?: ProjectClient;
  /**
   * Whether the folder on this machine may stand in for a client without `fs`: only when the client
   * runs on this machine (stdio). A remote client's `cwd` names a folder of Parley's host, not its own.
   */
  disk?: boolean;
  /** The client's MCP servers, as an mcp_config.json `mcpServers` map (stdio servers start in `root`). */
  mcpServers?: Record<string, McpServerSpec>;
  settings: Config['tools'];
  logger?: Logger;
}

export interface SessionTools extends ToolHost {
  /** The tools the session adds, by server: for the log and the client. */
  readonly servers: string[];
}

/** Throws (McpConfigError, Error) when a server is malformed or takes the name `project`: nothing is started then. */
export function createSessionTools(spec: SessionToolsSpec): SessionTools {
  if (spec.mcpServers && PROJECT_SERVER in spec.mcpServers)
    throw new Error(`the MCP server name "${PROJECT_SERVER}" is taken by the session's project tools`);
  const projectClient = spec.client ?? (spec.disk ? localProjectClient() : undefined);
  const project = projectClient
    ? createProjectTools({ root: spec.root, client: projectClient, resultMaxChars: spec.settings.resultMaxChars })
    : undefined;
  const names = Object.keys(spec.mcpServers ?? {});
  const mcp = names.length
    ? new McpToolHost({
        servers: Object.fromEntries(
          Object.entries(spec.mcpServers ?? {}).map(([name, s]) => [
            name,
            'command' in s ? { cwd: spec.root, ...s } : s,
          ]),
        ),
        // Connected on first use, like configured servers: a session that never calls them starts nothing.
        settings: { ...spec.settings, connect: 'lazy' },
        logger: spec.logger ?? silentLogger,
      })
    : undefined;
  const hostOf = (id: string): ToolHost | undefined =>
    id.startsWith(`${PROJECT_SERVER}/`) ? project : mcp && names.includes(id.split('/')[0]!) ? mcp : undefined;

  return {
    servers: [...(project ? [PROJECT_SERVER] : []), ...names],
    async listTools() {
      return [...((await project?.listTools()) ?? []), ...((await mcp?.listTools()) ?? [])];
    },
    getTool: (id) => hostOf(id)?.getTool(id) ?? Promise.resolve(undefined),
    inspect: (id, args, signal) => hostOf(id)?.inspect?.(id, args, signal) ?? Promise.resolve({}),
    callTool: (id, args, ctx) =>
      hostOf(id)?.callTool(id, args, ctx) ??
      Promise.resolve({ ok: false, text: `unknown tool ${id}`, full: null, error: `unknown tool ${id}` }),
    async close() {
      await Promise.all([project?.close(), mcp?.close()]);
    },
  };
}
