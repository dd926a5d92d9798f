/**
 * ingestAll: brings the registry in line with its sources — mcp_config.json servers (live
 * tools/list), SKILL.md folders and A2A agent cards. Each source has a content hash: an unchanged
 * source is skipped; specialists and tools a source no longer lists are marked gone, and sources
 * no longer configured have all theirs marked gone. One failing server or peer never stops the rest.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/client';
import type { Logger } from '../../log.ts';
import type { KnowledgeStore, SourceRecord, SpecialistRecord, ToolRecord } from '../store.ts';
import { isToolEnabled, loadMcpConfig, type McpConfig, type McpServerConfig } from '../../tools/mcp-config.ts';
import { discoverServer, type DiscoveredServer } from './mcp-discovery.ts';
import { readSkillsFolder, skillToSpecialist, type SkillFile, type SkippedFile } from './skills.ts';
import { cardToSpecialist, fetchAgentCard } from './a2a-cards.ts';

export interface IngestDeps {
  store: KnowledgeStore;
  /** An already loaded config, or the path to load (PARLEY_MCP_CONFIG). */
  mcpConfig?: McpConfig;
  mcpConfigPath?: string;
  skillsDirs: string[];
  a2aPeers: string[];
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Per server/peer: connect + tools/list, or card fetch. */
  discoveryTimeoutMs?: number;
  now?: () => Date;
}

export type SourceOutcome = 'ingested' | 'unchanged' | 'unavailable' | 'disabled' | 'removed';

export interface IngestReport {
  sources: { id: string; kind: SourceRecord['kind']; outcome: SourceOutcome; error?: string }[];
  specialists: number;
  tools: number;
  skippedFiles: SkippedFile[];
  unavailable: { source: string; error: string }[];
  /** Specialists naming tools of an MCP server the config does not define: those tools never reach them. */
  unknownServers: { specialist: string; path: string; server: string }[];
  durationMs: number;
}

export async function ingestAll(deps: IngestDeps): Promise<IngestReport> {
  const started = Date.now();
  const report: IngestReport = {
    sources: [],
    specialists: 0,
    tools: 0,
    skippedFiles: [],
    unavailable: [],
    unknownServers: [],
    durationMs: 0,
  };
  const config = withPathsRendered(
    deps.mcpConfig ?? (deps.mcpConfigPath ? loadMcpConfig(deps.mcpConfigPath, deps.env) : undefined),
    deps.env ?? process.env,
  );
  const ctx: Ctx = {
    deps,
    report,
    now: () => (deps.now?.() ?? new Date()).toISOString(),
    timeoutMs: deps.discoveryTimeoutMs ?? 15_000,
    configured: config
      ? { path: config.path, servers: new Set(config.servers.filter((s) => !s.disabled).map((s) => s.name)) }
      : undefined,
  };
  const current = new Set<string>();

  if (config) {
    const location = config.path;
    const enabled = config.servers.filter((s) => !s.disabled);
    // Discover in parallel (each is a process spawn or an HTTP round trip); write one by one.
    const discovered = await Promise.all(enabled.map((s) => discoverIfChanged(ctx, s)));
    for (const [i, server] of enabled.entries()) {
      current.add(mcpSourceId(server.name));
      await ingestServer(ctx, server, location, discovered[i]!);
    }
    for (const server of config.servers.filter((s) => s.disabled)) {
      await retire(ctx, mcpSourceId(server.name), 'disabled in the MCP config');
      report.sources.push({ id: mcpSourceId(server.name), kind: 'mcp', outcome: 'disabled' });
    }
  }

  const knownTools = (await deps.store.listTools()).filter((t) => t.available).map((t) => t.id);
  for (const dir of deps.skillsDirs) {
    current.add(skillsSourceId(dir));
    await ingestSkills(ctx, dir, knownTools);
  }
  for (const url of deps.a2aPeers) {
    current.add(a2aSourceId(url));
    await ingestPeer(ctx, url);
  }

  // Sources configured before but not now: everything they listed is gone.
  const previous = new Set((await deps.store.listSpecialists()).filter((s) => s.available).map((s) => s.sourceId));
  for (const sourceId of previous) {
    if (current.has(sourceId) || report.sources.some((s) => s.id === sourceId)) continue;
    await retire(ctx, sourceId, 'no longer configured');
    report.sources.push({ id: sourceId, kind: sourceKind(sourceId), outcome: 'removed' });
  }

  report.durationMs = Date.now() - started;
  deps.logger?.info('knowledge ingestion finished', {
    specialists: report.specialists,
    tools: report.tools,
    unavailable: report.unavailable.length,
    skippedFiles: report.skippedFiles.length,
  });
  return report;
}

interface Ctx {
  deps: IngestDeps;
  report: IngestReport;
  now: () => string;
  timeoutMs: number;
  /** The MCP config's enabled servers, to check the servers specialist files name. */
  configured?: { path: string; servers: Set<string> };
}

export const mcpSourceId = (server: string) => `mcp:${server}`;
export const skillsSourceId = (dir: string) => `skills:${dir}`;
export const a2aSourceId = (url: string) => `a2a:${url}`;
const sourceKind = (id: string): SourceRecord['kind'] => id.slice(0, id.indexOf(':')) as SourceRecord['kind'];

/**
 * Everything the source listed is gone, and its record no longer counts as ingested, so the
 * same content coming back later is ingested again rather than skipped as unchanged.
 */
async function retire(ctx: Ctx, sourceId: string, reason: string): Promise<void> {
  const { store } = ctx.deps;
  await store.markGone(sourceId, [], []);
  const source = await store.getSource(sourceId);
  if (source && source.status === 'ok')
    await store.upsertSource({ ...source, status: 'unavailable', error: reason, ingestedAt: ctx.now() });
}

type Discovery =
  { status: 'unchanged' } | { status: 'ok'; server: DiscoveredServer } | { status: 'failed'; error: string };

async function discoverIfChanged(ctx: Ctx, server: McpServerConfig): Promise<Discovery> {
  const previous = await ctx.deps.store.getSource(mcpSourceId(server.name));
  if (previous?.status === 'ok' && previous.contentHash === server.hash) return { status: 'unchanged' };
  try {
    return { status: 'ok', server: await discoverServer(server, ctx.timeoutMs) };
  } catch (err) {
    return { status: 'failed', error: (err as Error).message };
  }
}

async function ingestServer(ctx: Ctx, server: McpServerConfig, location: string, discovery: Discovery): Promise<void> {
  const { store } = ctx.deps;
  const sourceId = mcpSourceId(server.name);
  if (discovery.status === 'unchanged') {
    ctx.report.sources.push({ id: sourceId, kind: 'mcp', outcome: 'unchanged' });
    return;
  }
  const source: SourceRecord = {
    id: sourceId,
    kind: 'mcp',
    location,
    contentHash: server.hash,
    ingestedAt: ctx.now(),
    status: 'ok',
  };
  if (discovery.status === 'failed') {
    const error = `MCP server '${server.name}' failed discovery: ${discovery.error}`;
    await store.upsertSource({ ...source, status: 'unavailable', error });
    const existing = await store.getSpecialist(server.name);
    await store.upsertSpecialists([
      { ...serverSpecialist(server, existing?.tools ?? [], undefined), available: false, unavailableReason: error },
    ]);
    await store.markGone(sourceId, [server.name], []);
    ctx.report.sources.push({ id: sourceId, kind: 'mcp', outcome: 'unavailable', error });
    ctx.report.unavailable.push({ source: sourceId, error });
    ctx.deps.logger?.warn('MCP server unavailable; ingestion goes on', { server: server.name, error: discovery.error });
    return;
  }
  const tools = discovery.server.tools
    .filter((t) => isToolEnabled(server, t.name))
    .map((t) => toolRecord(server.name, t, sourceId));
  await store.upsertSource(source); // first, so tools and the specialist can link to it
  await store.upsertTools(tools);
  await store.upsertSpecialists([serverSpecialist(server, tools.map((t) => t.id).sort(), discovery.server, tools)]);
  await store.markGone(
    sourceId,
    [server.name],
    tools.map((t) => t.id),
  );
  ctx.report.sources.push({ id: sourceId, kind: 'mcp', outcome: 'ingested' });
  ctx.report.specialists += 1;
  ctx.report.tools += tools.length;
}

function toolRecord(server: string, tool: Tool, sourceId: string): ToolRecord {
  const annotations = { ...(tool.annotations ?? {}) };
  if (tool.title && annotations.title === undefined) annotations.title = tool.title;
  return {
    id: `${server}/${tool.name}`,
    server,
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations: {
      title: annotations.title,
      readOnlyHint: annotations.readOnlyHint,
      destructiveHint: annotations.destructiveHint,
      idempotentHint: annotations.idempotentHint,
      openWorldHint: annotations.openWorldHint,
    },
    available: true,
    sourceId,
  };
}

/** An MCP server as a specialist: its description says what its tools do, so retrieval finds it. */
function serverSpecialist(
  server: McpServerConfig,
  toolIds: string[],
  found: DiscoveredServer | undefined,
  tools: ToolRecord[] = [],
): SpecialistRecord {
  const summary =
    server.description ?? found?.instructions?.split('\n')[0] ?? `MCP server ${found?.serverName ?? server.name}.`;
  const toolLines = tools.map((t) => `- ${t.name}: ${firstSentence(t.description)}`).join('\n');
  return {
    id: server.name,
    name: server.name,
    description: toolLines ? `${summary}\nTools:\n${toolLines}` : summary,
    kind: 'mcp',
    domains: server.domains,
    prompt: '',
    endpoint: server.name,
    modelRole: 'specialist',
    tools: toolIds,
    sourceId: mcpSourceId(server.name),
    available: true,
  };
}

const firstSentence = (text: string) => (text.split(/(?<=\.)\s|\n/)[0] ?? '').slice(0, 200);

async function ingestSkills(ctx: Ctx, dir: string, knownTools: string[]): Promise<void> {
  const { store } = ctx.deps;
  const sourceId = skillsSourceId(dir);
  if (!existsSync(dir)) {
    const error = `skills folder ${dir} does not exist`;
    await retire(ctx, sourceId, error);
    ctx.report.sources.push({ id: sourceId, kind: 'skills', outcome: 'unavailable', error });
    ctx.report.unavailable.push({ source: sourceId, error });
    return;
  }
  const folder = readSkillsFolder(dir);
  ctx.report.skippedFiles.push(...folder.skipped);
  for (const s of folder.skipped)
    ctx.deps.logger?.warn('skipped a bad specialist file', { path: s.path, reason: s.reason });
  reportUnknownServers(ctx, folder.skills);
  // `server/*` expands against the known tools, so they are part of what the folder means.
  const contentHash = createHash('sha256').update(folder.contentHash).update(knownTools.sort().join(',')).digest('hex');
  const previous = await store.getSource(sourceId);
  if (previous?.status === 'ok' && previous.contentHash === contentHash) {
    ctx.report.sources.push({ id: sourceId, kind: 'skills', outcome: 'unchanged' });
    return;
  }
  const specialists = folder.skills.map((s) => skillToSpecialist(s, sourceId, knownTools));
  await store.upsertSource({
    id: sourceId,
    kind: 'skills',
    location: folder.dir,
    contentHash,
    ingestedAt: ctx.now(),
    status: 'ok',
  });
  await store.upsertSpecialists(specialists);
  await store.markGone(
    sourceId,
    specialists.map((s) => s.id),
    [],
  );
  ctx.report.sources.push({ id: sourceId, kind: 'skills', outcome: 'ingested' });
  ctx.report.specialists += specialists.length;
}

/** Checked on every ingestion (an unchanged folder too): the config may have changed under it. */
function reportUnknownServers(ctx: Ctx, skills: SkillFile[]): void {
  const configured = ctx.configured;
  if (!configured) return;
  for (const skill of skills) {
    const servers = new Set(skill.frontMatter.tools.map((t) => t.slice(0, t.indexOf('/'))));
    for (const server of [...servers].filter((name) => !configured.servers.has(name)).sort()) {
      ctx.report.unknownServers.push({ specialist: skill.frontMatter.name, path: skill.path, server });
      ctx.deps.logger?.warn(
        `The specialist ${skill.frontMatter.name} (${skill.path}) uses tools of the MCP server '${server}', which ` +
          `${configured.path} does not define (or disables): it runs without them. Add '${server}' to that file, ` +
          "or drop those tools from the specialist's front matter.",
      );
    }
  }
}

async function ingestPeer(ctx: Ctx, url: string): Promise<void> {
  const { store } = ctx.deps;
  const sourceId = a2aSourceId(url);
  let fetched: Awaited<ReturnType<typeof fetchAgentCard>>;
  try {
    fetched = await fetchAgentCard(url, ctx.timeoutMs);
  } catch (err) {
    const error = `A2A peer ${url} failed: ${(err as Error).message}`;
    await store.upsertSource({
      id: sourceId,
      kind: 'a2a',
      location: url,
      contentHash: '',
      ingestedAt: ctx.now(),
      status: 'unavailable',
      error,
    });
    for (const s of await store.listSpecialists({ kind: 'a2a' })) {
      if (s.sourceId === sourceId && s.available)
        await store.upsertSpecialists([{ ...s, available: false, unavailableReason: error }]);
    }
    ctx.report.sources.push({ id: sourceId, kind: 'a2a', outcome: 'unavailable', error });
    ctx.report.unavailable.push({ source: sourceId, error });
    ctx.deps.logger?.warn('A2A peer unavailable; ingestion goes on', { url, error });
    return;
  }
  const previous = await store.getSource(sourceId);
  if (previous?.status === 'ok' && previous.contentHash === fetched.contentHash) {
    ctx.report.sources.push({ id: sourceId, kind: 'a2a', outcome: 'unchanged' });
    return;
  }
  const specialist = cardToSpecialist(fetched.card, url, sourceId);
  await store.upsertSource({
    id: sourceId,
    kind: 'a2a',
    location: url,
    contentHash: fetched.contentHash,
    ingestedAt: ctx.now(),
    status: 'ok',
  });
  await store.upsertSpecialists([specialist]);
  await store.markGone(sourceId, [specialist.id], []);
  ctx.report.sources.push({ id: sourceId, kind: 'a2a', outcome: 'ingested' });
  ctx.report.specialists += 1;
}

/**
 * A server description that names a path as `<PARLEY_DATA_DIR>` (mcp_config.json writes it so for human
 * readers) gets the real path: a model never sees a placeholder.
 */
function withPathsRendered(
  config: McpConfig | undefined,
  env: Record<string, string | undefined>,
): McpConfig | undefined {
  if (!config) return undefined;
  const render = (text: string) => text.replace(/<(PARLEY_[A-Z_]+)>/g, (whole, name: string) => env[name] || whole);
  return {
    ...config,
    servers: config.servers.map((s) => (s.description ? { ...s, description: render(s.description) } : s)),
  };
}
