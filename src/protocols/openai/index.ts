/** The OpenAI-compatible endpoint: `openaiRoutes` serves /v1/chat/completions and /v1/models (docs/protocols/openai.md). */
export { openaiRoutes, type OpenAIDeps } from './routes.ts';
