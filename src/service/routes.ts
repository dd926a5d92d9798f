/**
 * GET /api/service: what `parley status` shows (pid, port, uptime, clients). It answers only the local
 * service token, whatever PARLEY_API_KEYS says: it describes this machine's service to its user, and
 * an API key (or, with auth off, anyone who can reach the port) is not that user.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { errorBody } from '../http/errors.ts';
import type { DegradedRun } from '../store/runs/reliable-run-store.ts';

export interface ServiceStatus {
  pid: number;
  url: string;
  port: number;
  dataDir: string;
  version: string;
  startedAt: string;
  uptimeMs: number;
  /** Connections open besides the one asking (each bridge holds one for its life). */
  clients: number;
  /** 0: the service never exits for idleness. */
  idleExitMs: number;
  /** Runs whose store writes fail beyond the retry window (docs/durability.md); empty when all is stored. */
  degradedRuns?: DegradedRun[];
  /** "ready", or why requests that plan a run would wait: "ingesting: …", "failed: …" (GET /ready's knowledge check). */
  knowledge?: string;
}

export const SERVICE_PATH = '/api/service';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function serviceRoutes(token: string, status: () => ServiceStatus): Hono {
  const expected = digest(token);
  const app = new Hono();
  app.get(SERVICE_PATH, (c) => {
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!sent || !timingSafeEqual(digest(sent), expected)) {
      return c.json(
        errorBody('unauthorized', `${SERVICE_PATH} needs the service token (service.token in the data dir).`),
        401,
      );
    }
    return c.json(status());
  });
  return app;
}
