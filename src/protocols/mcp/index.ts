/**
 * Parley as an MCP server, on 2026-07-28 (stateless) and the 2025 revisions (sessions). `mcpRoutes` serves Streamable HTTP (mount at /mcp), `serveMcpStdio`
 * serves stdio for `parley mcp`, `createParleyMcpServer` builds the server both use.
 * docs/protocols/mcp.md documents the tools, resources and IDE settings.
 */
export { createParleyMcpServer, type McpServerDeps } from './server.ts';
export { mcpRoutes, type McpRoutesDeps } from './http.ts';
export { serveMcpStdio, type McpStdioDeps } from './stdio.ts';
export { clusterEventBus } from './listen-bus.ts';
export { stateKeySource } from './state-key.ts';
