/**
 * Hot reload on a real Neo4j shared by two Parley processes (issue 45): process A ingests the
 * sources (a stdio MCP server and a SKILL.md folder), then ingests again after they changed (what
 * POST /mcp/reload does); A sees the change at once, process B (another store on the same database)
 * after its view's refresh interval, and neither ever sees a half-applied ingestion.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openNeo4jStore } from '../../../src/knowledge/neo4j/store.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';
import { ingestAll, type IngestDeps } from '../../../src/knowledge/ingest/ingest.ts';
import { run, step } from '../../support/records.ts';
import type { UsedNeo4j } from '../../support/use-neo4j.ts';

const STDIO_FIXTURE = resolve('test/fixtures/knowledge/mcp-stdio-server.ts');
/** B's view re-reads the database this often; A sees its own writes at once. */
const REFRESH_MS = 300;

const skill = (name: string, description: string) => `---
name: ${name}
description: ${description}
domains: [finance]
---
You are ${name}.
`;

function mcpConfig(tools: string): string {
  return JSON.stringify({
    mcpServers: {
      invoices: {
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_FIXTURE],
        cwd: process.cwd(),
        env: { FIXTURE_TOOLS: tools },
        domains: ['finance'],
      },
    },
  });
}

/** The hot-reload tests, inside a describe of neo4j.test.ts (one Neo4j per run of that file). */
export function defineNeo4jReloadSuite(db: UsedNeo4j): void {
  let dir: string;
  let deps: IngestDeps;
  let a: KnowledgeStore;
  let b: KnowledgeStore;

  beforeEach(async () => {
    await db.wipe();
    dir = mkdtempSync(join(tmpdir(), 'parley-neo4j-reload-'));
    const skills = join(dir, 'skills');
    mkdirSync(skills);
    writeFileSync(join(skills, 'invoice-clerk.md'), skill('invoice-clerk', 'Reconciles invoices against payments.'));
    writeFileSync(join(skills, 'tax-advisor.md'), skill('tax-advisor', 'Answers VAT questions for invoices.'));
    writeFileSync(join(dir, 'mcp_config.json'), mcpConfig('lookup_invoice,greet'));
    a = await openNeo4jStore({ ...db.connection, viewRefreshMs: REFRESH_MS });
    b = await openNeo4jStore({ ...db.connection, viewRefreshMs: REFRESH_MS });
    deps = {
      store: a,
      mcpConfigPath: join(dir, 'mcp_config.json'),
      skillsDirs: [skills],
      a2aPeers: [],
      discoveryTimeoutMs: 30_000,
    };
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a reload after the sources changed reaches this process at once and the other after its refresh', async () => {
    const first = await ingestAll(deps);
    expect(first.sources.map((s) => [s.id, s.outcome]).sort()).toEqual(
      [
        ['mcp:invoices', 'ingested'],
        [`skills:${deps.skillsDirs[0]}`, 'ingested'],
      ].sort(),
    );
    await expect
      .poll(async () => (await b.listSpecialists({ available: true })).map((s) => s.id).sort(), { timeout: 30_000 })
      .toEqual(['invoice-clerk', 'invoices', 'tax-advisor']);
    expect((await b.listTools('invoices')).map((t) => [t.id, t.available])).toEqual([
      ['invoices/greet', true],
      ['invoices/lookup_invoice', true],
    ]);

    // The sources change: a skill is edited, another removed, the server drops a tool and adds one.
    const skills = deps.skillsDirs[0]!;
    writeFileSync(join(skills, 'invoice-clerk.md'), skill('invoice-clerk', 'Chases overdue customers by email.'));
    unlinkSync(join(skills, 'tax-advisor.md'));
    writeFileSync(deps.mcpConfigPath!, mcpConfig('lookup_invoice,delete_invoice'));
    const reload = await ingestAll(deps);
    expect(reload.sources.every((s) => s.outcome === 'ingested')).toBe(true);

    // A: at once.
    expect((await a.getSpecialist('invoice-clerk'))?.description).toBe('Chases overdue customers by email.');
    expect((await a.getSpecialist('tax-advisor'))?.available).toBe(false);
    expect((await a.getSpecialist('invoices'))?.tools.sort()).toEqual([
      'invoices/delete_invoice',
      'invoices/lookup_invoice',
    ]);
    expect((await a.retrieveSpecialists('overdue customers email', 1))[0]?.specialist.id).toBe('invoice-clerk');

    // B: after its refresh, the whole reload (never the edited skill without the removed one).
    await expect
      .poll(async () => (await b.getSpecialist('invoice-clerk'))?.description, { timeout: 30_000 })
      .toBe('Chases overdue customers by email.');
    expect((await b.getSpecialist('tax-advisor'))?.available).toBe(false);
    expect((await b.getSpecialist('tax-advisor'))?.unavailableReason).toMatch(/no longer listed/);
    expect((await b.retrieveSpecialists('VAT questions', 5)).map((c) => c.specialist.id)).not.toContain('tax-advisor');
    expect((await b.listTools('invoices')).map((t) => [t.id, t.available])).toEqual([
      ['invoices/delete_invoice', true],
      ['invoices/greet', false],
      ['invoices/lookup_invoice', true],
    ]);

    // A third ingestion of unchanged sources changes nothing.
    const again = await ingestAll(deps);
    expect(again.sources.map((s) => s.outcome)).toEqual(['unchanged', 'unchanged']);
    expect(again.specialists).toBe(0);
  });

  it('what one process learns from a run the other reuses after its refresh: proficiency and the proven team', async () => {
    await ingestAll(deps);
    const query = 'Reconcile the March invoices against the bank payments';
    await a.recordRun(run(query, [step('s1', 'invoice-clerk')], { score: 0.9 }));
    expect(await a.findTeamConfig(query, { callerId: 'tester' })).toMatchObject({ uses: 1, successes: 1 });

    await expect
      .poll(async () => (await b.findTeamConfig(query, { callerId: 'tester' }))?.uses, { timeout: 30_000 })
      .toBe(1);
    expect((await b.retrieveSpecialists('reconcile invoices payments', 1))[0]?.proficiency).toMatchObject({
      runs: 1,
      successes: 1,
    });
    // B records the second run of the same team: both processes' counts land on one record.
    await b.recordRun(run(query, [step('s1', 'invoice-clerk')], { score: 0.7 }));
    await expect
      .poll(async () => (await a.findTeamConfig(query, { callerId: 'tester' }))?.uses, { timeout: 30_000 })
      .toBe(2);
    expect((await a.getProficiency('invoice-clerk', 'specialist'))?.runs).toBe(2);
    expect((await a.searchMemory('March invoices bank payments', 5)).length).toBe(2);
  });
}
