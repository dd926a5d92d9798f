/**
 * A2A (v1.0 on JSON-RPC, HTTP+JSON and gRPC, v0.3 on JSON-RPC): `a2aEndpoint` serves the agent card,
 * /a2a and /a2a/rest, and builds the gRPC server; `a2aRoutes` is its HTTP part.
 * A task is a run (bridge.ts); docs/protocols/a2a.md documents methods and the resume shape.
 */
export { a2aEndpoint, a2aRoutes, type A2ADeps, type A2AEndpoint } from './routes.ts';
export { cardSigner, JWKS_PATH, type CardSigner } from './card-signer.ts';
