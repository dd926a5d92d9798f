/** The plain SSE stream: `sseRoutes` serves /stream and /api/runs/:id/events (docs/protocols/sse.md); `threadRoutes` /api/threads. */
export { sseRoutes, type SseDeps } from './routes.ts';
export { threadRoutes } from './threads.ts';
export { timeTravelRoutes } from './time-travel-routes.ts';
export { evalRoutes, type EvalRoutesDeps } from './eval-routes.ts';
