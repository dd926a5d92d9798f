/**
 * The specialist registry's reads and writes: sources, specialists and tools. Specialists are read
 * from the cached view (and ranked there); every registry write tells the cache it is starting and
 * applies what it committed to it, so this process sees its own ingestion at once.
 */
import type { SourceRecord, SpecialistCandidate, SpecialistFilter, SpecialistRecord, ToolRecord } from '../store.ts';
import { specialistSearchText } from '../registry.ts';
import { sourceFromNode, specialistFromNode, toolFromNode } from '../rows.ts';
import { nodeOf, type CypherExecutor } from './executor.ts';
import type { QuerySet } from './queries.ts';
import type { ViewCache } from './view-cache.ts';

/** What the registry functions run on: the backend's executor and statements, and the store's view cache. */
export interface RegistryDb {
  exec: CypherExecutor;
  Q: QuerySet;
  cache: ViewCache;
}

export async function upsertSource({ exec, Q }: RegistryDb, source: SourceRecord): Promise<void> {
  await exec.write((q) => q(Q.upsertSource, { ...source, error: source.error ?? null }));
}

export async function getSource({ exec, Q }: RegistryDb, id: string): Promise<SourceRecord | undefined> {
  const rows = await exec.read((q) => q(Q.getSource, { id }));
  return rows[0] ? sourceFromNode(nodeOf(rows[0], 's')) : undefined;
}

export async function upsertSpecialists(
  { exec, Q, cache }: RegistryDb,
  specialists: SpecialistRecord[],
): Promise<void> {
  if (specialists.length === 0) return;
  cache.registryWriteStarts();
  const params = specialists.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    kind: s.kind,
    domains: JSON.stringify(s.domains),
    prompt: s.prompt,
    endpoint: s.endpoint,
    modelRole: s.modelRole,
    tools: JSON.stringify(s.tools),
    sourceId: s.sourceId,
    available: s.available,
    unavailableReason: s.unavailableReason ?? null,
    searchText: specialistSearchText(s),
  }));
  await exec.write(async (q) => {
    for (const [i, s] of specialists.entries()) {
      await q(Q.upsertSpecialist, params[i]);
      await q(Q.unlinkSpecialistSource, { id: s.id });
      await q(Q.linkSpecialistSource, { id: s.id, sourceId: s.sourceId });
      await q(Q.unlinkSpecialistTools, { id: s.id });
      if (s.tools.length) await q(Q.linkSpecialistTools, { id: s.id, tools: s.tools });
    }
  });
  // Records exactly as they read back (the statement's properties are the node's).
  await cache.writeThrough((view) =>
    view.upsertSpecialists(params.map((p) => specialistFromNode(p as unknown as Record<string, never>))),
  );
}

export async function upsertTools({ exec, Q, cache }: RegistryDb, tools: ToolRecord[]): Promise<void> {
  if (tools.length === 0) return;
  cache.registryWriteStarts();
  await exec.write(async (q) => {
    for (const t of tools) {
      await q(Q.upsertTool, {
        id: t.id,
        server: t.server,
        name: t.name,
        description: t.description,
        inputSchema: JSON.stringify(t.inputSchema ?? {}),
        annotations: JSON.stringify(t.annotations ?? {}),
        available: t.available,
        sourceId: t.sourceId ?? null,
      });
      if (t.sourceId) await q(Q.linkToolSource, { id: t.id, sourceId: t.sourceId });
      await q(Q.linkToolUsers, { id: t.id, quoted: JSON.stringify(t.id) });
    }
  });
  // What the view ranks by: which tools write files (knowledge/capabilities.ts).
  await cache.writeThrough((view) => view.upsertTools(tools));
}

export async function markGone(
  { exec, Q, cache }: RegistryDb,
  sourceId: string,
  keepSpecialistIds: string[],
  keepToolIds: string[],
): Promise<void> {
  cache.registryWriteStarts();
  await exec.write(async (q) => {
    await q(Q.markSpecialistsGone, { sourceId, keep: keepSpecialistIds });
    await q(Q.markToolsGone, { sourceId, keep: keepToolIds });
  });
  await cache.writeThrough((view) => view.markGone(sourceId, keepSpecialistIds, keepToolIds));
}

export async function listSpecialists({ cache }: RegistryDb, filter?: SpecialistFilter): Promise<SpecialistRecord[]> {
  return (await cache.view()).listSpecialists(filter);
}

export async function getSpecialist({ cache }: RegistryDb, id: string): Promise<SpecialistRecord | undefined> {
  return (await cache.view()).getSpecialist(id);
}

export async function listTools({ exec, Q }: RegistryDb, server?: string): Promise<ToolRecord[]> {
  const rows =
    server === undefined
      ? await exec.read((q) => q(Q.listTools))
      : await exec.read((q) => q(Q.listToolsOfServer, { server }));
  return rows.map((r) => toolFromNode(nodeOf(r, 't')));
}

export async function getTool({ exec, Q }: RegistryDb, id: string): Promise<ToolRecord | undefined> {
  const rows = await exec.read((q) => q(Q.getTool, { id }));
  return rows[0] ? toolFromNode(nodeOf(rows[0], 't')) : undefined;
}

export async function retrieveSpecialists(
  { cache }: RegistryDb,
  query: string,
  k: number,
): Promise<SpecialistCandidate[]> {
  if (k <= 0) return [];
  return (await cache.view()).rank(query, k);
}
