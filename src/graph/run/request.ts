/** What an adapter hands the engine: protocol-agnostic, plain data. */
import type { ModelRole } from '../../llm/types.ts';
import { LOCAL_CALLER, type Caller } from '../../identity/caller.ts';
import type { Budget } from '../spending/usage.ts';

/** Caller identity lives in identity/ (every layer scopes by it); re-exported for the engine's users. */
export { LOCAL_CALLER, canSee, ownerFilter, type Caller } from '../../identity/caller.ts';
// A run's budget is spending/'s idea; the request names it.
export type { Budget } from '../spending/usage.ts';

/**
 * How the answer names its sources: "none" (the default: the answer names none, the sources travel as
 * data on run.finished) or "numbered" (the answer cites named sources as [1], [2] and lists them at its end).
 */
export const CITATION_STYLES = ['none', 'numbered'] as const;
export type CitationStyle = (typeof CITATION_STYLES)[number];

export const RUN_MODES = ['auto', 'direct', 'orchestrate', 'council', 'dynamic', 'hybrid'] as const;
export type RunMode = (typeof RUN_MODES)[number];

export type ContentPart = { type: 'text'; text: string } | { type: 'image'; url: string; mimeType?: string };

export interface PriorMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** The caller a run belongs to: the request's, or the one local caller when it names none. */
export const ownerIdOf = (request: Pick<RunRequest, 'caller'>): string => request.caller?.id || LOCAL_CALLER.id;

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
  /** Inline numbered references to named sources (default "none": provenance as data only). */
  citations?: CitationStyle;
  budget?: Partial<Budget>;
  caller?: Caller;
  /** Which adapter started the run: "agui", "a2a", "acp", "mcp", "sse", "openai", "cli". */
  protocol: string;
  /** Set by time travel (graph/timetravel/): the run and checkpoint this run was forked from. */
  forkedFrom?: { runId: string; checkpoint: string };
  /** Set by time travel: the run whose request this run replays on another configuration. */
  replayOf?: string;
  /** The only specialists this run may plan with (a replay on another team); absent: every available one. */
  specialists?: string[];
}
