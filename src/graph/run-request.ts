/** What an adapter hands the engine: protocol-agnostic, plain data. */
import type { ModelRole } from '../llm/types.ts';

export const RUN_MODES = ['auto', 'direct', 'orchestrate', 'council'] as const;
export type RunMode = (typeof RUN_MODES)[number];

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; url: string; mimeType?: string };

export interface PriorMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** Budget limits; every field optional in overrides, which may only lower the configured defaults. */
export interface Budget {
  tokens: number;
  costUsd: number;
  modelCalls: number;
  toolCalls: number;
  wallTimeMs: number;
}

export interface Caller {
  /** Stable identity for per-caller budgets and rate limits: an API key id, or "anonymous". */
  id: string;
}

export interface RunRequest {
  /** Given by the adapter when its protocol names the run (AG-UI runId, A2A taskId); generated otherwise. */
  runId?: string;
  /** Conversation / session / A2A context id. */
  threadId?: string;
  query: string;
  /** Optional non-text parts of the query (images). */
  parts?: ContentPart[];
  messages?: PriorMessage[];
  mode?: RunMode;
  models?: Partial<Record<ModelRole, string>>;
  budget?: Partial<Budget>;
  caller?: Caller;
  /** Which adapter started the run: "agui", "a2a", "acp", "mcp", "sse", "openai", "cli". */
  protocol: string;
}
