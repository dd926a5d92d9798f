/**
 * Time travel over HTTP (docs/time-travel.md); the work is in graph/timetravel/, these only translate:
 *   GET  /api/runs/:id/checkpoints   the run's checkpoints, light: kind, label, time, step counts, usage so far
 *   GET  /api/runs/:id/checkpoints/:checkpoint   one checkpoint in full: plan, finished steps with outputs, usage
 *   POST /api/runs/:id/fork          { checkpoint, edit? } → 201 { runId, threadId, forkedFrom }: a new run from that state
 *   POST /api/runs/:id/replay        { model?, models?, specialists? } → 201 { runId, threadId, replayOf }: the same request again
 *   GET  /api/runs/compare?a=&b=     two runs side by side and what differs
 * Another caller's run answers 404 like an unknown one; a bad body or checkpoint 400, and nothing starts.
 * Mounted before /api/runs/:id (knowledge/routes.ts) so /api/runs/compare is not read as a run id.
 */
import { Hono, type Context } from 'hono';
import type { RunHandle, TimeTravel } from '../../graph/contract.ts';
import { callerOf } from '../../http/auth.ts';
import { readJson } from '../../http/body.ts';
import { errorHandler, jsonError } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import { retryAfterSeconds } from '../shared/admission.ts';

export interface TimeTravelRoutesDeps {
  timeTravel: TimeTravel;
  logger: Logger;
}

type Refused = { ok: false; status: 400 | 404; message: string };
const refuse = (c: Context, r: Refused) =>
  jsonError(c, r.status, r.message, r.status === 400 ? 'invalid_request' : 'not_found');

/** 201 with where to follow the new run, or 429 when the caller's rate limit refused it before any call. */
async function started(c: Context, handle: RunHandle, extra: object): Promise<Response> {
  const admission = await handle.admission;
  if (!admission.admitted)
    return jsonError(c, 429, admission.error, 'rate_limited', {
      'Retry-After': retryAfterSeconds(admission.retryAfterMs),
      'X-Parley-Run-Id': handle.id,
    });
  c.header('X-Parley-Run-Id', handle.id);
  return c.json(
    { runId: handle.id, threadId: handle.threadId, ...extra, events: `/api/runs/${handle.id}/events` },
    201,
  );
}

export function timeTravelRoutes(deps: TimeTravelRoutesDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  const { timeTravel } = deps;

  app.get('/api/runs/:id/checkpoints', async (c) => {
    const listed = await timeTravel.checkpoints(c.req.param('id'), callerOf(c));
    if (!listed.ok) return refuse(c, listed);
    return c.json({ runId: listed.runId, checkpoints: listed.checkpoints });
  });

  app.get('/api/runs/:id/checkpoints/:checkpoint', async (c) => {
    const one = await timeTravel.checkpoint(c.req.param('id'), c.req.param('checkpoint'), callerOf(c));
    if (!one.ok) return refuse(c, one);
    return c.json({ runId: one.runId, checkpoint: one.checkpoint });
  });

  app.post('/api/runs/:id/fork', async (c) => {
    const forked = await timeTravel.fork(c.req.param('id'), callerOf(c), await readJson(c), 'sse');
    if (!forked.ok) return refuse(c, forked);
    return started(c, forked.handle, { forkedFrom: forked.forkedFrom });
  });

  app.post('/api/runs/:id/replay', async (c) => {
    const runId = c.req.param('id');
    const replayed = await timeTravel.replay(runId, callerOf(c), await readJson(c), 'sse');
    if (!replayed.ok) return refuse(c, replayed);
    return started(c, replayed.handle, { replayOf: runId });
  });

  app.get('/api/runs/compare', async (c) => {
    const { a, b, ...extra } = c.req.query();
    const unknown = Object.keys(extra);
    if (unknown.length) return jsonError(c, 400, `Unknown query parameter: ${unknown.join(', ')}.`, 'invalid_request');
    if (!a || !b)
      return jsonError(c, 400, 'Name the two runs: /api/runs/compare?a=RUN_ID&b=RUN_ID.', 'invalid_request');
    const compared = await timeTravel.compare(a, b, callerOf(c));
    if (!compared.ok) return refuse(c, compared);
    const { ok: _ok, ...body } = compared;
    return c.json(body);
  });

  return app;
}
