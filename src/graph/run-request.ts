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
  /**
   * Stable identity: an API key id ("key-…"), or "anonymous" with auth off. Everything a run
   * produces belongs to its caller; also the subject of per-caller budgets and rate limits.
   */
  id: string;
  /** An operator's key (PARLEY_ADMIN_KEYS): sees and acts on every caller's runs and approvals. */
  admin?: boolean;
}

/**
 * The one local caller: every request when auth is off, and the local processes (`parley run`,
 * `parley acp`, `parley mcp` over stdio), so a single user's runs all share one execution memory.
 */
export const LOCAL_CALLER: Caller = Object.freeze({ id: 'anonymous' });

/** The caller a run belongs to: the request's, or the one local caller when it names none. */
export const ownerIdOf = (request: Pick<RunRequest, 'caller'>): string => request.caller?.id || LOCAL_CALLER.id;

/**
 * Whether `caller` may see a thing owned by `ownerId`: its owner, or an admin. No caller means an
 * internal, unscoped look-up (the engine itself, the CLI); adapters always pass the request's caller.
 */
export function canSee(caller: Caller | undefined, ownerId: string | undefined): boolean {
  return caller === undefined || caller.admin === true || caller.id === ownerId;
}

/** The owner id to filter a listing by: undefined (everything) for an admin or an unscoped look-up. */
export function ownerFilter(caller: Caller | undefined): string | undefined {
  return caller === undefined || caller.admin === true ? undefined : caller.id;
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
  /** Stream the model's reasoning as model.thought events (default PARLEY_STREAM_REASONING). */
  reasoning?: boolean;
  budget?: Partial<Budget>;
  caller?: Caller;
  /** Which adapter started the run: "agui", "a2a", "acp", "mcp", "sse", "openai", "cli". */
  protocol: string;
}
