/**
 * A2A (v1.0 JSON-RPC with v0.3 compatibility): `a2aRoutes` serves the agent card and /a2a.
 * A task is a run (bridge.ts); docs/protocols/a2a.md documents methods and the resume shape.
 */
export { a2aRoutes, type A2ADeps } from './routes.ts';
