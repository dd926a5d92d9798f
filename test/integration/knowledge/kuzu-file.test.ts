/** Kuzu on a file: data survives a restart, and a second process on the same file is refused clearly. */
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import { KuzuSession } from '../../../src/knowledge/kuzu/session.ts';
import { SCHEMA_VERSION, migrate } from '../../../src/knowledge/kuzu/schema.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';
import { ROSTER, run, step } from '../../support/records.ts';

const exec = promisify(execFile);
const openInChild = (path: string) =>
  exec(process.execPath, ['--import', 'tsx', 'test/fixtures/knowledge/open-store.ts', path]).then(
    (r) => JSON.parse(r.stdout.trim()) as { ok: boolean; name?: string; message?: string },
    (err: { stdout: string }) => JSON.parse(err.stdout.trim()) as { ok: boolean; name?: string; message?: string },
  );

describe('Kuzu store on a file', () => {
  const dirs: string[] = [];
  const open: KnowledgeStore[] = [];
  const tempDb = () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-kuzu-'));
    dirs.push(dir);
    return join(dir, 'nested', 'knowledge.kuzu');
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps specialists, runs, statistics and the full-text index across a reopen', async () => {
    const path = tempDb();
    const first = await openKuzuStore({ path });
    await first.upsertSpecialists(ROSTER);
    const r = run('Design a Postgres schema for invoices', [step('s1', 'database')], { score: 0.9 });
    await first.recordRun(r);
    await first.close();

    const second = await openKuzuStore({ path });
    open.push(second);
    expect((await second.listSpecialists()).length).toBe(ROSTER.length);
    expect(await second.getRun(r.id)).toEqual(r);
    expect((await second.getProficiency('database', 'specialist'))?.runs).toBe(1);
    expect((await second.retrieveSpecialists('postgres schema', 1))[0]?.specialist.id).toBe('database');
    expect(await second.findTeamConfig('design a postgres schema for invoices')).toBeDefined();
  });

  it('refuses a second process on the same file with a clear message, and the first keeps working', async () => {
    const path = tempDb();
    const holder = await openKuzuStore({ path });
    open.push(holder);
    await holder.upsertSpecialists(ROSTER.slice(0, 1));

    const child = await openInChild(path);
    expect(child.ok).toBe(false);
    expect(child.name).toBe('StoreLockedError');
    expect(child.message).toContain('in use by another process');
    expect(child.message).toContain('PARLEY_DATA_DIR');
    expect(child.message).toContain(path);

    expect((await holder.listSpecialists()).map((s) => s.id)).toEqual([ROSTER[0]!.id]);
    await holder.close();
    open.length = 0;
    expect((await openInChild(path)).ok).toBe(true);
  });

  it('opens a database written by schema version 1 (teams and decisions without owners) and migrates it', async () => {
    const path = tempDb();
    const old = await KuzuSession.open(path);
    await migrate(old, 1);
    // Versions 1 and 2 also created two full-text indexes that nothing queried; version 3 drops them.
    await old.exclusive(async () => {
      await old.ddl("CALL CREATE_FTS_INDEX('Specialist', 'specialist_text', ['searchText'])");
      await old.ddl("CALL CREATE_FTS_INDEX('Run', 'run_text', ['searchText'])");
    });
    expect(await old.query('CALL SHOW_INDEXES() RETURN index_name AS i ORDER BY i')).toEqual([
      { i: 'run_text' },
      { i: 'specialist_text' },
    ]);
    // What the previous version wrote: a proven team and a decision with no caller, a run with one.
    await old.query(
      'CREATE (:TeamConfig {id: \'team:old\', pattern: \'design invoic postgr schema\', specialists: \'["database"]\', plan: \'{"rationale":"","steps":[]}\', uses: 5, successes: 5, avgScore: 0.9})',
    );
    await old.query(
      "CREATE (:Decision {id: 'd-old', runId: 'run-old', question: 'Ship?', verdict: '{}', decidedAt: '2026-01-01T00:00:00.000Z'})",
    );
    await old.query(
      "CREATE (:Run {id: 'run-old', threadId: 't', query: 'postgres vacuum tuning', protocol: 'test', callerId: 'tester', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1.0, status: 'completed', answer: 'tune autovacuum', tokens: 1.0, costUsd: 0.0, score: 0.9, searchText: 'postgres vacuum tuning'})",
    );
    await old.close();

    const store = await openKuzuStore({ path });
    open.push(store);
    // The old team is read (an unscoped look-up finds it) but belongs to nobody: no caller reuses it.
    expect(await store.findTeamConfig('design a postgres schema for invoices')).toMatchObject({
      id: 'team:old',
      callerId: '',
    });
    expect(await store.findTeamConfig('design a postgres schema for invoices', { callerId: 'tester' })).toBeUndefined();
    expect((await store.listDecisions(10)).map((d) => ({ id: d.id, callerId: d.callerId }))).toEqual([
      { id: 'd-old', callerId: undefined },
    ]);
    expect((await store.searchMemory('postgres vacuum', 5, { callerId: 'tester' })).map((h) => h.runId)).toEqual([
      'run-old',
    ]);
    expect(await store.searchMemory('postgres vacuum', 5, { callerId: 'someone-else' })).toEqual([]);

    // New records carry their caller, and are found by it only.
    await store.upsertSpecialists(ROSTER);
    await store.recordRun(run('Design a Postgres schema for invoices', [step('s1', 'database')], { score: 0.9 }));
    await store.recordDecision({
      id: 'd-new',
      runId: 'run-new',
      callerId: 'tester',
      question: 'Ship now?',
      verdict: {} as never,
      decidedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(await store.findTeamConfig('design a postgres schema for invoices', { callerId: 'tester' })).toMatchObject({
      callerId: 'tester',
      uses: 1,
    });
    expect(
      await store.findTeamConfig('design a postgres schema for invoices', { callerId: 'someone-else' }),
    ).toBeUndefined();
    expect((await store.listDecisions(10, { callerId: 'tester' })).map((d) => d.id)).toEqual(['d-new']);
    await store.close();
    open.length = 0;

    const raw = await KuzuSession.open(path);
    // Version 4 keeps the version in the Source table's comment and drops the Meta table.
    expect(await raw.query("CALL SHOW_TABLES() WHERE name = 'Source' OR name = 'Meta' RETURN name, comment")).toEqual([
      { name: 'Source', comment: `parley schema ${SCHEMA_VERSION}` },
    ]);
    expect(await raw.query('CALL SHOW_INDEXES() RETURN index_name AS i')).toEqual([]);
    await raw.close();
    expect(SCHEMA_VERSION).toBe(4);
  });

  it('migrates a version 3 database (the version in a Meta table) to 4 without losing what it holds', async () => {
    const path = tempDb();
    const old = await KuzuSession.open(path);
    await migrate(old, 3);
    expect(await old.query("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v")).toEqual([{ v: '3' }]);
    await old.close();
    const v3 = await openKuzuStore({ path });
    await v3.upsertSpecialists(ROSTER);
    await v3.close();

    const store = await openKuzuStore({ path });
    open.push(store);
    expect((await store.listSpecialists()).length).toBe(ROSTER.length);
    await store.close();
    open.length = 0;
    const raw = await KuzuSession.open(path);
    const tables = await raw.query('CALL SHOW_TABLES() RETURN name, comment');
    expect(tables.map((t) => t.name)).not.toContain('Meta');
    expect(tables.find((t) => t.name === 'Source')?.comment).toBe('parley schema 4');
    await raw.close();
  });

  it('creates the schema on a database where a version 1-3 Parley stopped after creating an empty Meta table', async () => {
    const path = tempDb();
    const old = await KuzuSession.open(path);
    await old.query('CREATE NODE TABLE Meta(key STRING, value STRING, PRIMARY KEY(key))');
    await old.close();
    const store = await openKuzuStore({ path });
    await store.upsertSpecialists(ROSTER);
    await store.close();
    const raw = await KuzuSession.open(path);
    const tables = await raw.query('CALL SHOW_TABLES() RETURN name, comment');
    expect(tables.map((t) => t.name)).not.toContain('Meta');
    expect(tables.find((t) => t.name === 'Source')?.comment).toBe(`parley schema ${SCHEMA_VERSION}`);
    await raw.close();
  });

  it('records the schema version and refuses a database written by a newer schema', async () => {
    const path = tempDb();
    await (await openKuzuStore({ path })).close();
    const raw = await KuzuSession.open(path);
    expect(await raw.query("CALL SHOW_TABLES() WHERE name = 'Source' RETURN comment")).toEqual([
      { comment: `parley schema ${SCHEMA_VERSION}` },
    ]);
    await raw.query("COMMENT ON TABLE Source IS 'parley schema 99'");
    await raw.close();
    await expect(openKuzuStore({ path })).rejects.toThrow(/schema version 99, newer than this Parley understands/);
  });
});
