/**
 * The settings of the knowledge graph (docs/configuration.md, "Knowledge graph"): its database
 * (embedded Kuzu, or Neo4j when NEO4J_URI is set), its sources and retrieval.
 */
import { z } from 'zod';
import { list, nonNegativeInt, positiveInt, text, unitInterval } from './parsers.ts';
import { homeSetting, type Setting } from './setting.ts';

export const KNOWLEDGE_SETTINGS = [
  {
    env: 'PARLEY_KUZU_BUFFER_POOL_MB',
    at: 'knowledge.bufferPoolBytes',
    // Set in MiB, kept in bytes (what Kuzu takes).
    schema: z.coerce
      .number()
      .int()
      .min(64)
      .transform((mb) => mb * 1024 * 1024),
    default: '256',
    description:
      'Buffer pool of the embedded Kuzu database, in MiB, at least 64 (Kuzu\'s own default is 80% of RAM, which an editor-spawned process should not claim). Raise it for a large graph; ":memory:" keeps the whole graph in it.',
  },
  {
    env: 'NEO4J_URI',
    at: 'knowledge.neo4j?.uri',
    schema: z.string().regex(/^(neo4j|bolt)(\+s|\+ssc)?:\/\//, 'a neo4j:// or bolt:// URI'),
    description: 'Use Neo4j instead of Kuzu (e.g. neo4j://localhost:7687).',
  },
  { env: 'NEO4J_USER', at: 'knowledge.neo4j?.user', schema: text, default: 'neo4j', description: 'Neo4j user.' },
  {
    env: 'NEO4J_PASSWORD',
    at: 'knowledge.neo4j?.password',
    schema: z.string(),
    default: '',
    description: 'Neo4j password.',
  },
  {
    env: 'NEO4J_DATABASE',
    at: 'knowledge.neo4j?.database',
    schema: text,
    default: 'neo4j',
    description: 'Neo4j database name.',
  },
  {
    env: 'PARLEY_NEO4J_VIEW_REFRESH_MS',
    at: 'knowledge.neo4j?.viewRefreshMs',
    schema: positiveInt,
    default: '5000',
    description:
      'How often a Parley on Neo4j re-reads the registry and statistics other processes wrote (its own writes apply at once).',
  },
  homeSetting({
    env: 'PARLEY_MCP_CONFIG',
    at: 'knowledge.mcpConfigPath',
    schema: text,
    fromHome: (value, paths) => value ?? paths.mcpConfig.path,
    description:
      'Path of the mcpServers config to ingest and connect. Unset: <home>/mcp_config.json when present, else the shipped one.',
  }),
  homeSetting({
    env: 'PARLEY_SKILLS_DIRS',
    at: 'knowledge.skillsDirs',
    schema: list,
    // The home decides whether the variable counts (a blank one does not), as for the other sources.
    fromHome: (value, paths) =>
      paths.skillsDirs[0]?.from === 'env' && value ? value : paths.skillsDirs.map((d) => d.path),
    description:
      'Comma-separated folders of SKILL.md-style specialist files. Unset: <home>/specialists when present, else the shipped folder.',
  }),
  {
    env: 'PARLEY_A2A_PEERS',
    at: 'knowledge.a2aPeers',
    schema: list,
    default: '',
    description: 'Comma-separated base URLs of A2A peer agents; their agent cards become specialists.',
  },
  {
    env: 'PARLEY_TOP_K',
    at: 'knowledge.topK',
    schema: positiveInt,
    default: '7',
    description: 'How many candidate specialists the planner sees.',
  },
  {
    env: 'PARLEY_TEAM_REUSE',
    at: 'knowledge.teamReuse',
    schema: z.stringbool(),
    default: 'true',
    description:
      'Router stage 1: reuse a proven team (no planning call) for a query of the same shape as the one that taught it; false always plans.',
  },
  {
    env: 'PARLEY_TEAM_MATCH_THRESHOLD',
    at: 'knowledge.teamMatchThreshold',
    schema: unitInterval,
    default: '0.8',
    description: "How similar a query must be to a proven team's pattern for reuse (0..1).",
  },
  {
    env: 'PARLEY_TEAM_MIN_SUCCESS_RATE',
    at: 'knowledge.teamMinSuccessRate',
    schema: unitInterval,
    default: '0.6',
    description: 'Success rate a team needs before it is reused without planning.',
  },
  {
    env: 'PARLEY_MEMORY_WINDOW',
    at: 'knowledge.memoryWindow',
    schema: nonNegativeInt,
    default: '5000',
    description:
      'How many of the most recent runs execution-memory search covers (held in memory; 0 turns memory search off).',
  },
  {
    env: 'PARLEY_EMBEDDINGS_MODEL',
    at: 'model.embeddingsModel',
    schema: text,
    description: 'Embeddings model on the model endpoint; when set, retrieval adds vector similarity.',
  },
] as const satisfies readonly Setting[];
