/**
 * ACP (Zed's Agent Client Protocol, v1) adapter: Parley as an agent for editors and remote ACP clients.
 * The public surface the composition root wires in:
 * - createAcpAgent(deps): the SDK AgentApp for one connection (in-process clients, custom transports)
 * - serveAcpStdio(deps): `parley acp`, newline-delimited JSON-RPC on stdin/stdout
 * - acpRoutes(deps): /acp over Streamable HTTP (the SDK's experimental AcpServer), across replicas too
 * docs/protocols/acp.md describes the mapping and what is supported.
 */
export { createAcpAgent, type AcpDeps } from './agent.ts';
export { modelChoices } from './config-options.ts';
export { serveAcpStdio, type AcpStdio } from './stdio.ts';
export { acpRoutes, type AcpRoutes, type AcpHttpDeps } from './http.ts';
export { acpWebSocket, type AcpWebSocket, type AcpWebSocketDeps } from './ws.ts';
/** Replicas: where each ACP HTTP connection lives, so any replica can pass a request to its owner. */
export { connectionDirectory, type ConnectionDirectory } from './replica-forward.ts';
/** The per-client record the composition root's shared ACP client map holds (HTTP and WebSocket count together). */
export type { CappedClient } from '../shared/client-caps.ts';
