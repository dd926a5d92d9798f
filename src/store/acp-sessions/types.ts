/**
 * ACP session records (docs/protocols/acp.md, "Loading a session"): what an editor needs to resume a
 * conversation after the agent process restarts. The conversation itself is the thread of the same id
 * (docs/threads.md); this record keeps the rest of the session. Every method is scoped by the caller.
 */

export interface AcpSessionRecord {
  sessionId: string;
  /** The session's project root (absolute), as the client gave it at session/new. */
  cwd: string;
  /** The run mode of later prompts (auto, direct, orchestrate, council). */
  mode: string;
  /** The MCP servers the client passed (ACP McpServer objects), re-attached on load when it passes none. */
  mcpServers: unknown[];
  createdAt: number;
  updatedAt: number;
  /** The first prompt, clipped; absent until the session has one. */
  title?: string;
}

export interface AcpSessionRetention {
  /** Sessions kept per caller; a new one beyond it drops the least recently updated. */
  maxPerCaller: number;
  /** A session not updated for this long is never returned again. */
  maxAgeMs: number;
}

export interface AcpSessionStore {
  put(callerId: string, record: AcpSessionRecord): Promise<void>;
  get(callerId: string, sessionId: string): Promise<AcpSessionRecord | undefined>;
  /** The caller's sessions, most recently updated first, optionally only those of one folder. */
  list(callerId: string, options?: { cwd?: string }): Promise<AcpSessionRecord[]>;
}

export const ACP_TITLE_CHARS = 120;
/** Session ids are part of a stored key: longer ones are never stored or found. */
export const MAX_ACP_SESSION_ID_CHARS = 256;
