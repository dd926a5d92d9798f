/**
 * ACP (Zed's Agent Client Protocol, v1) adapter: Parley as an agent for editors and remote ACP clients.
 * The public surface the composition root wires in:
 * - createAcpAgent(deps): the SDK AgentApp for one connection (in-process clients, custom transports)
 * - serveAcpStdio(deps): `parley acp`, newline-delimited JSON-RPC on stdin/stdout
 * - acpRoutes(deps): /acp over Streamable HTTP (the SDK's experimental AcpServer)
 * docs/protocols/acp.md describes the mapping and what is supported.
 */
export { createAcpAgent, type AcpDeps } from './acp-agent.ts';
export { serveAcpStdio, type AcpStdio } from './acp-stdio.ts';
export { acpRoutes, type AcpRoutes, type AcpHttpDeps } from './acp-http.ts';
export { acpWebSocket, type AcpWebSocket, type AcpWebSocketDeps } from './acp-ws.ts';
