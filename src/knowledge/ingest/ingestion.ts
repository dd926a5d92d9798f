/**
 * The ingestion service the server holds: knows where the sources are (Config.knowledge), loads
 * mcp_config.json once at creation (so a bad file or a missing ${VAR} stops start-up), and on
 * every ingest() reads it again, so POST /mcp/reload picks up edits. A bad edit fails the reload
 * and keeps the config in force.
 */
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { KnowledgeStore } from '../store.ts';
import { ingestAll, type IngestReport } from './ingest.ts';
import { loadMcpConfig, type McpConfig } from '../../tools/mcp-config.ts';

export interface Ingestion {
  /** Re-reads mcp_config.json and ingests every source. Throws McpConfigError on a bad config. */
  ingest(): Promise<IngestReport>;
  /** The config in force (last one that loaded). */
  mcpConfig(): McpConfig;
}

export function createIngestion(deps: {
  store: KnowledgeStore;
  knowledge: Pick<Config['knowledge'], 'mcpConfigPath' | 'skillsDirs' | 'a2aPeers'>;
  env?: Record<string, string | undefined>;
  logger?: Logger;
  discoveryTimeoutMs?: number;
}): Ingestion {
  const { knowledge } = deps;
  let current = loadMcpConfig(knowledge.mcpConfigPath, deps.env);
  return {
    async ingest() {
      const next = loadMcpConfig(knowledge.mcpConfigPath, deps.env);
      current = next;
      return ingestAll({
        store: deps.store,
        mcpConfig: next,
        skillsDirs: knowledge.skillsDirs,
        a2aPeers: knowledge.a2aPeers,
        env: deps.env,
        logger: deps.logger,
        discoveryTimeoutMs: deps.discoveryTimeoutMs,
      });
    },
    mcpConfig: () => current,
  };
}
