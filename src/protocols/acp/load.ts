/**
 * What session/load and session/list need beside the agent: the session's stored record (written at
 * session/new, set_mode and after each prompt), the replay of its thread as session/update
 * notifications, and session/list's pages (newest first, an opaque cursor).
 */
import { z } from 'zod';
import { RequestError, type ListSessionsResponse, type McpServer, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { Logger } from '../../log.ts';
import { ACP_TITLE_CHARS, type AcpSessionRecord, type AcpSessionStore } from '../../store/acp-sessions/types.ts';
import type { ThreadTurn } from '../../store/threads/types.ts';
import type { AcpSession } from './session.ts';

/** session/list answers at most this many sessions a page. */
export const LIST_PAGE_SIZE = 50;

/** The caller's session records; without a store every write is a no-op and nothing is found. */
export function createSessionRecords(store: AcpSessionStore | undefined, callerId: string, logger: Logger) {
  // A record that cannot be written costs the session its resumability, never its turn.
  const write = async (record: AcpSessionRecord) =>
    store
      ?.put(callerId, record)
      .catch((err: unknown) =>
        logger.warn('acp: the session record was not stored', { sessionId: record.sessionId, error: String(err) }),
      );
  const get = async (sessionId: string) => store?.get(callerId, sessionId);
  return {
    get,
    list: async (cwd?: string) => (store ? store.list(callerId, cwd !== undefined ? { cwd } : {}) : []),
    async created(session: AcpSession, mcpServers: McpServer[]) {
      const at = Date.now();
      await write({
        sessionId: session.id,
        cwd: session.cwd,
        mode: session.mode,
        mcpServers,
        createdAt: at,
        updatedAt: at,
      });
    },
    async update(sessionId: string, change: Partial<Pick<AcpSessionRecord, 'mode' | 'mcpServers'>>) {
      const record = await get(sessionId);
      if (record) await write({ ...record, ...change, updatedAt: Date.now() });
    },
    /** After a turn: the title (the first prompt's query) and the time of last activity; undefined without a store. */
    async prompted(
      sessionId: string,
      query: string,
    ): Promise<Pick<AcpSessionRecord, 'title' | 'updatedAt'> | undefined> {
      const record = await get(sessionId);
      if (!record) return undefined;
      const next = { ...record, title: record.title ?? query.slice(0, ACP_TITLE_CHARS), updatedAt: Date.now() };
      await write(next);
      return { title: next.title, updatedAt: next.updatedAt };
    },
  };
}

/**
 * Sends the stored turns, oldest first: each user message, its plan (one entry per step, finished, the
 * way plan.ts shows a step that ended without success) and the answer.
 */
export async function replayThread(
  send: (update: SessionUpdate) => Promise<unknown>,
  turns: ThreadTurn[],
): Promise<void> {
  for (const turn of turns) {
    await send({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: turn.user } });
    if (turn.steps?.length)
      await send({
        sessionUpdate: 'plan',
        entries: turn.steps.map((s) => ({
          content: s.status === 'succeeded' ? `${s.specialist}: ${s.id}` : `${s.specialist}: ${s.id} (${s.status})`,
          priority: 'medium',
          status: 'completed',
          _meta: { parley: { stepStatus: s.status } },
        })),
      });
    if (turn.answer) await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: turn.answer } });
  }
}

const cursorSchema = z.object({ offset: z.number().int().min(0) });

/** One page of session/list; the cursor is opaque to the client (base64url JSON of the offset). */
export function listSessionsPage(records: AcpSessionRecord[], cursor: string | undefined): ListSessionsResponse {
  let offset = 0;
  if (cursor !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const checked = cursorSchema.safeParse(parsed);
    if (!checked.success) throw RequestError.invalidParams({ cursor }, 'the cursor is not one session/list gave');
    offset = checked.data.offset;
  }
  const page = records.slice(offset, offset + LIST_PAGE_SIZE);
  const next = offset + LIST_PAGE_SIZE;
  return {
    sessions: page.map((r) => ({
      sessionId: r.sessionId,
      cwd: r.cwd,
      ...(r.title !== undefined ? { title: r.title } : {}),
      updatedAt: new Date(r.updatedAt).toISOString(),
    })),
    ...(next < records.length
      ? { nextCursor: Buffer.from(JSON.stringify({ offset: next })).toString('base64url') }
      : {}),
  };
}
