/**
 * HTTP routes of the knowledge graph, as a Hono sub-app mounted at the root:
 *   GET  /api/specialists   ?kind=prompt|mcp|a2a &domain= &available=true|false &q= &include=proficiency
 *   GET  /api/memory        ?q= &k=1..50   execution-memory search over the caller's own runs (an admin's: every caller's)
 *   GET  /api/runs          ?limit=1..1000 &status= &threadId= &protocol=   the caller's own runs (an admin's: every caller's)
 *   GET  /api/runs/:id      the run with steps and approvals; 404 when unknown or another caller's
 *   GET  /api/decisions     ?limit=1..1000   the caller's council verdicts, newest first (an admin's: every caller's)
 *   GET  /api/decisions/:id one decision; 404 when unknown or another caller's
 *   GET  /mcp/config        the parsed mcp_config.json, secrets redacted (operators only: it names server files)
 *   GET  /mcp/tools         ?server=  tools with annotations and the config's approval/timeout say
 *   GET  /mcp/servers       each MCP server: connected, circuit-breaker state, tool count (and last error, for operators)
 *   POST /mcp/reload        re-ingest every source now; answers the ingestion report (operators only)
 * Errors use Parley's one shape: { "error": { "code", "message" } }.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { callerOf, isOperator, operatorsOnly } from '../http/auth.ts';
import { jsonError } from '../http/errors.ts';
import { canSee, ownerFilter } from '../identity/caller.ts';
import type { KnowledgeStore } from './store.ts';
import { emptyProficiency, publicSpecialist } from './registry.ts';
import type { McpServerStatus } from '../tools/mcp-host.ts';
import type { IngestReport } from './ingest/ingest.ts';
import {
  McpConfigError,
  configRequiresApproval,
  configToolTimeoutMs,
  redactMcpConfig,
  type McpConfig,
} from '../tools/mcp-config.ts';

export interface KnowledgeRoutesDeps {
  store: KnowledgeStore;
  /** Re-reads the sources and ingests them (the lead may also reconnect tool hosts here). */
  reingest: () => Promise<IngestReport>;
  /** The config in force; a function when reloads can replace it. */
  mcpConfig?: McpConfig | (() => McpConfig | undefined);
  /** Runs still going: execution memory records a run only once it finishes (graph/durable/running-run.ts). */
  running?: RunningRuns;
  /** The MCP tool host's view of each server (GET /mcp/servers); absent: no servers listed. */
  toolStatus?: () => McpServerStatus[];
}

export interface RunningRuns {
  /** Summaries, newest first; `callerId` undefined means every caller's (an admin). */
  list(callerId: string | undefined, threadId: string | undefined, protocol?: string): Promise<{ status: 'running' }[]>;
  /** The run's detail and its owner, or undefined when it is not running. */
  get(id: string): Promise<{ callerId: string; detail: object } | undefined>;
}

const boolParam = z.enum(['true', 'false']).transform((v) => v === 'true');
const SpecialistQuery = z.strictObject({
  kind: z.enum(['prompt', 'mcp', 'a2a']).optional(),
  domain: z.string().min(1).optional(),
  available: boolParam.optional(),
  q: z.string().min(1).optional(),
  include: z.literal('proficiency').optional(),
});
const MemoryQuery = z.strictObject({
  q: z.string().trim().min(1, 'say what to search for').max(2000),
  k: z.coerce.number().int().min(1).max(50).optional(),
});
const RunsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled', 'blocked']).optional(),
  threadId: z.string().min(1).optional(),
  protocol: z.string().min(1).max(32).optional(),
});
const DecisionsQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).optional() });
const ToolsQuery = z.strictObject({ server: z.string().min(1).optional() });

function badQuery(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const name = issue.path.join('.');
  return issue.code === 'unrecognized_keys'
    ? `Unknown query parameter: ${issue.keys.join(', ')}.`
    : `Query parameter "${name}": ${issue.message}.`;
}

export function knowledgeRoutes(deps: KnowledgeRoutesDeps): Hono {
  const app = new Hono();
  const currentConfig = () => (typeof deps.mcpConfig === 'function' ? deps.mcpConfig() : deps.mcpConfig);
  let reloading: Promise<IngestReport> | undefined;

  const runningRuns = (callerId: string | undefined, threadId: string | undefined, protocol: string | undefined) =>
    deps.running ? deps.running.list(callerId, threadId, protocol) : Promise.resolve([]);

  app.get('/api/specialists', async (c) => {
    const query = SpecialistQuery.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, badQuery(query.error));
    const { q, include, ...filter } = query.data;
    const specialists = (await deps.store.listSpecialists({ ...filter, text: q })).map(publicSpecialist);
    if (include !== 'proficiency') return c.json({ specialists });
    // Proficiency is shared learning about a specialist (counts and means), never any caller's content.
    const withProficiency = await Promise.all(
      specialists.map(async (s) => ({
        ...s,
        proficiency: (await deps.store.getProficiency(s.id, 'specialist')) ?? emptyProficiency(s.id, 'specialist'),
      })),
    );
    return c.json({ specialists: withProficiency });
  });

  app.get('/api/memory', async (c) => {
    const query = MemoryQuery.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, badQuery(query.error));
    const callerId = ownerFilter(callerOf(c));
    const hits = await deps.store.searchMemory(
      query.data.q,
      query.data.k ?? 10,
      callerId !== undefined ? { callerId } : {},
    );
    return c.json({ hits });
  });

  app.get('/api/runs', async (c) => {
    const query = RunsQuery.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, badQuery(query.error));
    const callerId = ownerFilter(callerOf(c));
    const { status, limit = 50, threadId, protocol } = query.data;
    // Runs still going come first (newest first), then execution memory's finished ones.
    const running = status === undefined || status === 'running' ? await runningRuns(callerId, threadId, protocol) : [];
    const finished =
      status === 'running' || running.length >= limit
        ? []
        : await deps.store.listRuns({
            ...query.data,
            status,
            limit: limit - running.length,
            ...(callerId !== undefined ? { callerId } : {}),
          });
    return c.json({ runs: [...running.slice(0, limit), ...finished] });
  });

  app.get('/api/runs/:id', async (c) => {
    const id = c.req.param('id');
    const run = await deps.store.getRun(id);
    if (run && canSee(callerOf(c), run.callerId))
      return c.json({ ...run, approvals: await deps.store.listApprovals(id) });
    const running = await deps.running?.get(id);
    // Another caller's run answers exactly like an unknown one.
    if (!running || !canSee(callerOf(c), running.callerId)) return jsonError(c, 404, `No run with id "${id}".`);
    return c.json(running.detail);
  });

  app.get('/api/decisions', async (c) => {
    const query = DecisionsQuery.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, badQuery(query.error));
    const callerId = ownerFilter(callerOf(c));
    return c.json({
      decisions: await deps.store.listDecisions(query.data.limit ?? 20, callerId !== undefined ? { callerId } : {}),
    });
  });

  app.get('/api/decisions/:id', async (c) => {
    const id = c.req.param('id');
    const decision = await deps.store.getDecision(id);
    // Another caller's decision answers exactly like an unknown one.
    if (!decision || !canSee(callerOf(c), decision.callerId)) return jsonError(c, 404, `No decision with id "${id}".`);
    return c.json(decision);
  });

  app.get('/mcp/config', operatorsOnly, (c) => {
    const config = currentConfig();
    return c.json(config ? redactMcpConfig(config) : { path: null, servers: [] });
  });

  app.get('/mcp/tools', async (c) => {
    const query = ToolsQuery.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, badQuery(query.error));
    const servers = new Map((currentConfig()?.servers ?? []).map((s) => [s.name, s]));
    const tools = (await deps.store.listTools(query.data.server)).map((t) => {
      const server = servers.get(t.server);
      return {
        ...t,
        requireApproval: server ? configRequiresApproval(server, t.name) : undefined,
        timeoutMs: server ? configToolTimeoutMs(server, t.name) : undefined,
      };
    });
    return c.json({ tools });
  });

  app.get('/mcp/servers', (c) => {
    const servers = deps.toolStatus?.() ?? [];
    // A connection error may name hosts, ports or files of the deployment: operators only, like /mcp/config.
    if (isOperator(callerOf(c))) return c.json({ servers });
    return c.json({ servers: servers.map(({ lastError: _hidden, ...rest }) => rest) });
  });

  app.post('/mcp/reload', operatorsOnly, async (c) => {
    // Concurrent reloads share one ingestion rather than racing each other.
    reloading ??= deps.reingest().finally(() => (reloading = undefined));
    try {
      return c.json({ report: await reloading });
    } catch (err) {
      if (err instanceof McpConfigError) return jsonError(c, 400, err.message, 'invalid_mcp_config');
      throw err;
    }
  });

  return app;
}
