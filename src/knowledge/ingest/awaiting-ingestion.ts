/**
 * What `parley serve` answers before its start-up ingestion has ended. The server listens first and
 * ingests after (discovering the MCP servers spawns each one: about a second of a cold start), so a
 * first request can come while it runs. The registry's reads (specialists and tools) then answer from
 * what the knowledge graph holds (the last discovered tool lists) when it knew every configured source
 * at start; when it lacked one (a fresh data dir, a server or a specialists folder just added), they
 * wait for the ingestion, up to `maxWaitMs`, and then answer from what the graph holds by then.
 * `readiness()` says which of these holds, for GET /ready: a load balancer sends no traffic that would wait.
 */
import type { Logger } from '../../log.ts';
import type { KnowledgeStore } from '../store.ts';

/** The registry reads that plan a run or list what it can use. Everything else passes straight through. */
const GATED = new Set<PropertyKey>(['listSpecialists', 'getSpecialist', 'listTools', 'getTool', 'retrieveSpecialists']);

export interface StartupIngestion {
  /** The store every reader uses: reads wait for the ingestion while a configured source is unknown. */
  store: KnowledgeStore;
  /** Starts the ingestion (once); resolves when it ended, whatever its outcome. */
  start(ingest: () => Promise<unknown>): Promise<void>;
  /**
   * For GET /ready: true once the registry's reads no longer wait; otherwise what an operator can act
   * on ("ingesting: …", "failed: …"). Names MCP servers, never paths or error text (both in the log).
   */
  readiness(): true | string;
  /** A later ingestion (POST /mcp/reload) succeeded: a failed start-up ingestion no longer stands. */
  reingested(): void;
}

/** The sources a readiness answer names: MCP servers by name; specialist folders and A2A peers counted (paths, URLs). */
function describeSources(ids: string[]): string {
  const count = (prefix: string, what: string) => {
    const n = ids.filter((id) => id.startsWith(prefix)).length;
    return n === 0 ? [] : [`${n} ${what}${n > 1 ? 's' : ''}`];
  };
  return [
    ...ids.filter((id) => id.startsWith('mcp:')),
    ...count('skills:', 'specialist folder'),
    ...count('a2a:', 'A2A peer'),
  ].join(', ');
}

export async function startupIngestion(deps: {
  /** The store the ingestion itself writes and reads (never gated: it would wait on itself). */
  store: KnowledgeStore;
  /** Source ids the config names (mcp:<server>, skills:<dir>, a2a:<url>). */
  configuredSources: string[];
  maxWaitMs: number;
  logger: Logger;
}): Promise<StartupIngestion> {
  const { store, logger } = deps;
  const known = await Promise.all(deps.configuredSources.map((id) => store.getSource(id)));
  const unknown = deps.configuredSources.filter((_, i) => known[i] === undefined);
  let release!: () => void;
  // Nothing to wait for when the graph knew every source: the last ingestion's records serve.
  const ended = unknown.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => (release = resolve));
  let open = unknown.length === 0;
  void ended.then(() => (open = true));
  let waiting: Promise<void> | undefined;
  const wait = () =>
    (waiting ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        logger.warn(
          `a request waited ${deps.maxWaitMs} ms for the start-up ingestion (${unknown.join(', ')} not yet known); it goes on with what the knowledge graph holds`,
        );
        open = true;
        resolve();
      }, deps.maxWaitMs);
      timer.unref();
      void ended.then(() => {
        clearTimeout(timer);
        resolve();
      });
    }));
  let started: Promise<void> | undefined;
  /** When the start-up ingestion failed (its error is logged), until a later one succeeds. */
  let failedAt: string | undefined;
  return {
    store: new Proxy(store, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        if (!GATED.has(name)) return method.bind(target);
        if (open) return method.bind(target);
        return async (...args: unknown[]) => {
          await wait();
          return method.apply(target, args);
        };
      },
    }),
    start: (ingest) =>
      (started ??= ingest().then(
        () => release?.(),
        (err: unknown) => {
          failedAt = new Date().toISOString();
          logger.error('the start-up ingestion failed; the knowledge graph keeps what it held', {
            error: err instanceof Error ? err.message : String(err),
          });
          release?.();
        },
      )),
    readiness: () => {
      if (failedAt)
        return `failed: the start-up ingestion failed at ${failedAt} (the server log says why: "the start-up ingestion failed"); fix the cause, then POST /mcp/reload or restart`;
      if (open) return true;
      return `ingesting: requests that plan a run wait for the start-up ingestion (at most ${deps.maxWaitMs / 1000} s): ${describeSources(unknown)} not yet in the knowledge graph`;
    },
    reingested: () => {
      failedAt = undefined;
    },
  };
}
