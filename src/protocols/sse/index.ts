/** The plain SSE stream: `sseRoutes` serves /stream and /api/runs/:id/events (docs/protocols/sse.md). */
export { sseRoutes, type SseDeps } from './routes.ts';
