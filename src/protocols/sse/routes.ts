/**
 * The plain SSE stream (docs/protocols/sse.md): GraphEvents exactly as the engine emits them.
 *   POST /stream                    start a run, stream its events (429 + Retry-After when rate limited)
 *   GET  /stream/:runId             reconnect: events after Last-Event-ID (or ?after=N) from the retained history
 *   POST /stream/:runId/cancel      cancel a run; answers once it ended (202 cancelled, 409 already ended, 202 cancelling)
 *   GET  /api/runs/:id/events       replay a running or finished run (on replicas, one another replica ran: from the
 *                                   run store): SSE, or a JSON array with Accept: application/json
 * A client going away does not cancel the run (it may reconnect); cancel it explicitly.
 * A run belongs to the caller that started it: another caller's run id answers 404 like an unknown one.
 */
import { Hono, type Context } from 'hono';
import type { Config } from '../../config.ts';
import { type GraphEvent, resolveModelChoice, type RunEngine, type RunHandle } from '../../graph/contract.ts';
import { callerOf } from '../../http/auth.ts';
import { readJson } from '../../http/body.ts';
import { errorHandler, jsonError } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import { admit, retryAfterSeconds } from '../shared/admission.ts';
import { describeIssue } from '../shared/run-options.ts';
import { StreamBodySchema } from './body.ts';
import { streamGraphEvents } from './stream.ts';

export interface SseDeps {
  engine: RunEngine;
  config: Config;
  logger: Logger;
}

export function sseRoutes(deps: SseDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  const heartbeatMs = deps.config.protocols.sseHeartbeatMs;

  app.post('/stream', async (c) => {
    const parsed = StreamBodySchema.safeParse(await readJson(c));
    if (!parsed.success) return invalid(c, describeIssue(parsed.error));
    const body = parsed.data;
    const models = resolveModelChoice(body);
    const handle = deps.engine.start({
      query: body.query,
      ...(body.threadId ? { threadId: body.threadId } : {}),
      ...(body.mode ? { mode: body.mode } : {}),
      ...(models ? { models } : {}),
      ...(body.budget ? { budget: body.budget } : {}),
      ...(body.reasoning !== undefined ? { reasoning: body.reasoning } : {}),
      ...(body.citations ? { citations: body.citations } : {}),
      caller: callerOf(c),
      protocol: 'sse',
    });
    const admission = await admit(handle);
    if (!admission.admitted) {
      return jsonError(c, 429, admission.error, 'rate_limited', {
        'Retry-After': retryAfterSeconds(admission.retryAfterMs),
        'X-Parley-Run-Id': handle.id,
      });
    }
    c.header('X-Parley-Run-Id', handle.id);
    return streamGraphEvents(c, admission.events, { heartbeatMs });
  });

  app.get('/stream/:runId', (c) => {
    const handle = deps.engine.get(c.req.param('runId'), callerOf(c));
    if (!handle) return unknownRun(c, deps.config);
    const after = afterSeqOf(c);
    if (typeof after === 'string') return jsonError(c, 400, after, 'invalid_request');
    c.header('X-Parley-Run-Id', handle.id);
    return streamGraphEvents(c, handle.events(after)[Symbol.asyncIterator](), { heartbeatMs });
  });

  // Answers what happened, wherever the run executes: cancelled, already ended (and how), or still cancelling.
  app.post('/stream/:runId/cancel', async (c) => {
    const handle = await deps.engine.find(c.req.param('runId'), callerOf(c));
    if (!handle) return unknownRun(c, deps.config);
    const answer = await deps.engine.cancelAndWait(handle, 'cancelled by the client');
    const runId = handle.id;
    if (answer.outcome === 'cancelled') return c.json({ runId, cancelled: true, status: 'cancelled' }, 202);
    if (answer.outcome === 'cancelling') return c.json({ runId, cancelled: true, status: 'cancelling' }, 202);
    return c.json({ runId, cancelled: false, status: answer.status }, 409);
  });

  app.get('/api/runs/:id/events', async (c) => {
    const handle = await deps.engine.find(c.req.param('id'), callerOf(c));
    if (!handle) return unknownRun(c, deps.config);
    const after = afterSeqOf(c);
    if (typeof after === 'string') return jsonError(c, 400, after, 'invalid_request');
    c.header('X-Parley-Run-Id', handle.id);
    if (prefersJson(c.req.header('accept'))) return c.json(await retainedEvents(handle, after));
    return streamGraphEvents(c, handle.events(after)[Symbol.asyncIterator](), { heartbeatMs });
  });

  return app;
}

function invalid(c: Context, issue: { field: string; message: string }): Response {
  return c.json({ error: { code: 'invalid_request', message: issue.message, field: issue.field } }, 400);
}

function unknownRun(c: Context, config: Config): Response {
  const { runRetentionMs, runRetentionMax } = config.engine;
  const minutes = Math.round(runRetentionMs / 60_000);
  return jsonError(
    c,
    404,
    `No run ${c.req.param('runId') ?? c.req.param('id')}: unknown, or no longer retained (finished runs stay replayable ${minutes} min, the latest ${runRetentionMax} at most: PARLEY_RUN_RETENTION_MS, PARLEY_RUN_RETENTION_MAX).`,
  );
}

/** Last-Event-ID header (EventSource sends it on reconnect) or ?after=; an error message when malformed. */
function afterSeqOf(c: Context): number | string {
  const raw = c.req.header('last-event-id') ?? c.req.query('after');
  if (raw === undefined || raw === '') return 0;
  if (!/^\d+$/.test(raw.trim()))
    return `Last-Event-ID / after must be a non-negative integer event seq, got ${JSON.stringify(raw)}.`;
  return Number(raw.trim());
}

function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const json = types.indexOf('application/json');
  const sse = types.indexOf('text/event-stream');
  return json !== -1 && (sse === -1 || json < sse);
}

/**
 * The events retained so far, without waiting for more: a consumer hands out retained events from
 * already-resolved promises, so a next() still pending after the current macrotask means "caught up".
 * A run that has ended is read to its end instead: its events may come from the run store (another
 * replica ran it), whose reads take longer than a macrotask, and nothing more will come.
 */
async function retainedEvents(handle: RunHandle, afterSeq: number): Promise<GraphEvent[]> {
  const ended =
    handle.fromStore === true || (await Promise.race([handle.result.then(() => true), nextMacrotask(false)]));
  const iterator = handle.events(afterSeq)[Symbol.asyncIterator]();
  const events: GraphEvent[] = [];
  try {
    for (;;) {
      const next = await (ended ? iterator.next() : Promise.race([iterator.next(), nextMacrotask('idle' as const)]));
      if (next === 'idle' || next.done) break;
      events.push(next.value);
    }
  } finally {
    await iterator.return?.();
  }
  return events;
}

const nextMacrotask = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
