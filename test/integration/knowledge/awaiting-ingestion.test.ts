/**
 * What `parley serve` answers while its start-up ingestion runs (src/knowledge/ingest/awaiting-ingestion.ts):
 * the registry's reads wait for it only when the knowledge graph lacked a configured source, and never
 * longer than the bound; readiness() (GET /ready's `knowledge` check) says whether they would wait. A real
 * Kuzu store; the "ingestion" writes it as ingestAll would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startupIngestion } from '../../../src/knowledge/ingest/awaiting-ingestion.ts';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';
import { silentLogger } from '../../../src/log.ts';
import { specialist } from '../../support/records.ts';

const stores: KnowledgeStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function openStore(): Promise<KnowledgeStore> {
  const store = await openKuzuStore({ path: ':memory:' });
  stores.push(store);
  return store;
}

/** What an ingestion of the MCP server `files` writes: its source, then its specialist. */
async function ingestFiles(store: KnowledgeStore): Promise<void> {
  await store.upsertSource({
    id: 'mcp:files',
    kind: 'mcp',
    location: 'mcp_config.json',
    contentHash: 'h1',
    ingestedAt: new Date().toISOString(),
    status: 'ok',
  });
  await store.upsertSpecialists([
    specialist('files', 'Reads and writes files.', { kind: 'mcp', sourceId: 'mcp:files' }),
  ]);
}

/** An ingestion the test lets finish when it wants. */
function heldIngestion(store: KnowledgeStore) {
  let finish!: () => void;
  const released = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: async () => {
      await released;
      await ingestFiles(store);
    },
    finish,
  };
}

const ids = (list: { id: string }[]) => list.map((s) => s.id);

describe('reads during the start-up ingestion', () => {
  it('wait for it when the graph lacked a configured source (a fresh data dir), then see what it wrote', async () => {
    const store = await openStore();
    const gate = await startupIngestion({
      store,
      configuredSources: ['mcp:files'],
      maxWaitMs: 10_000,
      logger: silentLogger,
    });
    const ingestion = heldIngestion(store);
    expect(gate.readiness()).toMatch(/^ingesting: .*mcp:files not yet in the knowledge graph/);
    const ended = gate.start(ingestion.run);
    let answered = false;
    const read = gate.store.listSpecialists({ available: true }).then((list) => ((answered = true), list));
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    ingestion.finish();
    expect(ids(await read)).toEqual(['files']);
    await ended;
    expect(gate.readiness()).toBe(true);
    // Done: reads go straight to the store, writes never waited.
    expect(ids(await gate.store.listSpecialists())).toEqual(['files']);
    expect((await gate.store.getSource('mcp:files'))?.status).toBe('ok');
  });

  it('answer at once from the last ingestion when the graph knew every configured source', async () => {
    const store = await openStore();
    await ingestFiles(store);
    const gate = await startupIngestion({
      store,
      configuredSources: ['mcp:files'],
      maxWaitMs: 10_000,
      logger: silentLogger,
    });
    const ingestion = heldIngestion(store);
    void gate.start(ingestion.run);
    expect(gate.readiness()).toBe(true);
    // The ingestion is held: an answer now is the graph's last state, not a wait.
    expect(ids(await gate.store.listSpecialists({ available: true }))).toEqual(['files']);
    expect(await gate.store.getSpecialist('files')).toMatchObject({ kind: 'mcp' });
    ingestion.finish();
  });

  it('wait no longer than the bound when the ingestion hangs, and say so', async () => {
    const store = await openStore();
    const warnings: string[] = [];
    const gate = await startupIngestion({
      store,
      configuredSources: ['mcp:files'],
      maxWaitMs: 200,
      logger: { ...silentLogger, warn: (message: string) => warnings.push(message) },
    });
    void gate.start(() => new Promise(() => undefined));
    const started = Date.now();
    expect(await gate.store.listSpecialists()).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(warnings.join('\n')).toMatch(/waited 200 ms for the start-up ingestion \(mcp:files not yet known\)/);
    // Bounded once: later reads do not wait again, so the replica is ready.
    expect(gate.readiness()).toBe(true);
    const again = Date.now();
    await gate.store.listTools();
    expect(Date.now() - again).toBeLessThan(150);
  });

  it('a failed ingestion opens the reads and is logged, never thrown at them', async () => {
    const store = await openStore();
    const errors: string[] = [];
    const gate = await startupIngestion({
      store,
      configuredSources: ['mcp:files'],
      maxWaitMs: 10_000,
      logger: { ...silentLogger, error: (message: string) => errors.push(message) },
    });
    await gate.start(() => Promise.reject(new Error('the config vanished')));
    expect(await gate.store.listSpecialists()).toEqual([]);
    expect(errors.join('\n')).toMatch(/start-up ingestion failed/);
  });

  it('a failed ingestion is not ready, names no path or error text, and a later ingestion clears it', async () => {
    const store = await openStore();
    const gate = await startupIngestion({
      store,
      configuredSources: ['mcp:files', 'skills:/srv/parley/specialists', 'a2a:https://peer.example/'],
      maxWaitMs: 10_000,
      logger: silentLogger,
    });
    expect(gate.readiness()).toBe(
      'ingesting: requests that plan a run wait for the start-up ingestion (at most 10 s): mcp:files, 1 specialist folder, 1 A2A peer not yet in the knowledge graph',
    );
    await gate.start(() => Promise.reject(new Error("EACCES: permission denied, open '/srv/parley/kuzu/wal'")));
    const failed = gate.readiness();
    expect(failed).toMatch(
      /^failed: the start-up ingestion failed at \d{4}-\d\d-\d\dT[\d:.]+Z \(the server log says why: "the start-up ingestion failed"\); fix the cause, then POST \/mcp\/reload or restart$/,
    );
    expect(failed).not.toMatch(/srv|EACCES|peer\.example/);
    gate.reingested();
    expect(gate.readiness()).toBe(true);
  });
});
