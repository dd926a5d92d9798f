/**
 * The thread API (docs/threads.md), beside the plain /api routes of the SSE adapter:
 *   GET    /api/threads        ?limit=1..1000   the caller's threads, most recently continued first
 *   GET    /api/threads/:id    the caller's thread with its turns
 *   DELETE /api/threads/:id    deletes the caller's thread (204)
 * Threads are keyed by caller: another caller's thread id answers 404 like an unknown one, for an
 * admin too (a thread is a private conversation, not an operational record like a run).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { callerOf } from '../../http/auth.ts';
import { errorHandler, jsonError } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import type { ThreadStore } from '../../store/threads/types.ts';

const ThreadsQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).optional() });

export function threadRoutes(deps: { threads: ThreadStore; logger: Logger }): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  const notFound = (id: string) => `No thread with id "${id}".`;

  app.get('/api/threads', async (c) => {
    const query = ThreadsQuery.safeParse(c.req.query());
    if (!query.success) {
      const issue = query.error.issues[0]!;
      const message =
        issue.code === 'unrecognized_keys'
          ? `Unknown query parameter: ${issue.keys.join(', ')}.`
          : `Invalid query parameter ${issue.path.join('.')}: ${issue.message}.`;
      return jsonError(c, 400, message);
    }
    const threads = await deps.threads.listThreads(callerOf(c).id, { limit: query.data.limit ?? 100 });
    return c.json({ threads });
  });

  app.get('/api/threads/:id', async (c) => {
    const id = c.req.param('id');
    const thread = await deps.threads.getThread(callerOf(c).id, id);
    return thread ? c.json(thread) : jsonError(c, 404, notFound(id));
  });

  app.delete('/api/threads/:id', async (c) => {
    const id = c.req.param('id');
    return (await deps.threads.deleteThread(callerOf(c).id, id)) ? c.body(null, 204) : jsonError(c, 404, notFound(id));
  });

  return app;
}
