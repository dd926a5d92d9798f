/**
 * The scorecards `parley eval` kept for the console (docs/evals.md, "In the console"); the files are
 * store/scorecards/files.ts, these only translate:
 *   GET /api/evals?limit=N   the caller's last scorecards, newest first (summaries; N 1–50, default 50)
 *   GET /api/evals/:id       one scorecard in full, with its summary
 * A caller sees its own (an admin key every caller's); another caller's id answers 404 like an unknown one.
 */
import { Hono } from 'hono';
import { callerOf } from '../../http/auth.ts';
import { errorHandler, jsonError } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import { KEEP_SCORECARDS, listScorecards, readScorecard } from '../../store/scorecards/files.ts';

export interface EvalRoutesDeps {
  /** The data dir the scorecards are under (`:memory:` keeps none). */
  dataDir: string;
  logger: Logger;
}

export function evalRoutes(deps: EvalRoutesDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  const kept = deps.dataDir !== ':memory:';

  app.get('/api/evals', (c) => {
    const { limit, ...extra } = c.req.query();
    const unknown = Object.keys(extra);
    if (unknown.length) return jsonError(c, 400, `Unknown query parameter: ${unknown.join(', ')}.`, 'invalid_request');
    if (limit !== undefined && !/^[1-9]\d{0,2}$/.test(limit))
      return jsonError(c, 400, `limit must be a whole number from 1 to ${KEEP_SCORECARDS}.`, 'invalid_request');
    const n = Math.min(limit === undefined ? KEEP_SCORECARDS : Number(limit), KEEP_SCORECARDS);
    return c.json({ scorecards: kept ? listScorecards(deps.dataDir, callerOf(c), n) : [] });
  });

  app.get('/api/evals/:id', (c) => {
    const id = c.req.param('id');
    const found = kept ? readScorecard(deps.dataDir, callerOf(c), id) : undefined;
    if (!found) return jsonError(c, 404, `No scorecard with id "${id}".`, 'not_found');
    return c.json({ ...found.summary, scorecard: found.scorecard });
  });

  return app;
}
