/**
 * The store's in-memory view: what one process writes it sees at once (write-through), and what
 * another process writes to the same database it sees after the next refresh. Two CypherStores on
 * one Kuzu database stand in for two Parley processes on one Neo4j.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CypherStore } from '../../../src/knowledge/cypher-store.ts';
import { KuzuSession } from '../../../src/knowledge/kuzu/session.ts';
import { migrate } from '../../../src/knowledge/kuzu/schema.ts';
import { Q } from '../../../src/knowledge/kuzu/queries.ts';
import { kuzuExecutor } from '../../../src/knowledge/kuzu/store.ts';
import { DEFAULT_REGISTRY_OPTIONS, pickTeam } from '../../../src/knowledge/registry.ts';
import { KnowledgeView } from '../../../src/knowledge/view.ts';
import { ROSTER, run, specialist, step } from '../../support/records.ts';

let session: KuzuSession;
let clock: number;
const open = (refreshMs: number, memoryWindow?: number) =>
  new CypherStore(kuzuExecutor(session), Q, DEFAULT_REGISTRY_OPTIONS, { refreshMs, memoryWindow, now: () => clock });

beforeEach(async () => {
  clock = 1_000;
  session = await KuzuSession.open(':memory:');
  await migrate(session);
});
afterEach(async () => {
  await session.close();
});

describe('in-memory view of the knowledge store', () => {
  it('sees its own writes at once: upserts, markGone, recorded teams and proficiency', async () => {
    const store = open(Infinity);
    await store.upsertSpecialists(ROSTER);
    expect((await store.retrieveSpecialists('postgres schema indexes', 3))[0]?.specialist.id).toBe('database');

    await store.upsertSpecialists([specialist('database', 'Bakes sourdough bread.', { domains: ['baking'] })]);
    expect((await store.retrieveSpecialists('postgres schema indexes', 3)).map((c) => c.specialist.id)).not.toContain(
      'database',
    );
    expect((await store.getSpecialist('database'))?.description).toBe('Bakes sourdough bread.');

    await store.markGone('skills:test', ['writer'], []);
    expect((await store.listSpecialists({ available: true })).map((s) => s.id)).toEqual(['writer']);
    expect((await store.getSpecialist('devops'))?.unavailableReason).toMatch(/no longer listed/);

    await store.recordRun(run('tune the invoices database', [step('a', 'writer')], { score: 0.9 }));
    expect(await store.findTeamConfig('tune the invoices database')).toMatchObject({ uses: 1, successes: 1 });
    expect((await store.retrieveSpecialists('documentation readme', 1))[0]?.proficiency).toMatchObject({
      runs: 1,
      successes: 1,
    });
  });

  it("sees another process's writes only after its refresh interval", async () => {
    const a = open(5_000);
    const b = open(5_000);
    await a.upsertSpecialists(ROSTER);
    expect(await b.listSpecialists()).toHaveLength(ROSTER.length); // first read loads the view

    await a.upsertSpecialists([specialist('data-viz', 'Draws charts and dashboards.')]);
    await a.recordRun(run('chart the monthly revenue', [step('s1', 'writer')], { score: 0.9 }));
    await a.recordRun(run('chart the monthly revenue', [step('s1', 'writer')], { score: 0.8 }));
    expect(await a.findTeamConfig('chart the monthly revenue')).toMatchObject({ uses: 2 });
    // b still serves its view: not yet refreshed.
    expect(await b.getSpecialist('data-viz')).toBeUndefined();
    expect(await b.findTeamConfig('chart the monthly revenue')).toBeUndefined();

    clock += 5_000;
    await b.listSpecialists(); // past the interval: starts a background refresh, answers from the current view
    await expect
      .poll(async () => (await b.getSpecialist('data-viz'))?.description)
      .toBe('Draws charts and dashboards.');
    expect(await b.findTeamConfig('chart the monthly revenue')).toMatchObject({ uses: 2, successes: 2 });
    expect((await b.retrieveSpecialists('documentation readme', 1))[0]?.proficiency).toMatchObject({ runs: 2 });
  });

  it("loads the most recent runs for memory search from the database, and another process's runs at its refresh", async () => {
    const a = open(5_000);
    const at = (second: number) => new Date(Date.UTC(2026, 3, 1, 0, 0, second)).toISOString();
    const recorded = [1, 2, 3, 4, 5].map((n) =>
      run(`Shard the invoices table, take ${n}`, [], { startedAt: at(n), plan: undefined }),
    );
    for (const r of recorded) await a.recordRun(r);

    const b = open(5_000, 3); // its view is loaded now, from the database: the 3 newest runs
    const ids = async () => (await b.searchMemory('shard invoices table', 10)).map((h) => h.runId).sort();
    expect(await ids()).toEqual(
      recorded
        .slice(2)
        .map((r) => r.id)
        .sort(),
    );

    const newest = run('Shard the invoices table, take 6', [], { startedAt: at(6), plan: undefined });
    await a.recordRun(newest);
    expect(await ids()).not.toContain(newest.id); // not yet refreshed
    clock += 5_000;
    await b.listSpecialists(); // starts the background refresh
    await expect.poll(ids).toEqual([recorded[3]!.id, recorded[4]!.id, newest.id].sort());
  });

  it('answers memory the same from the database as written through: status, absolute relevance, shared terms', async () => {
    const a = open(5_000);
    await a.recordRun(
      run('Rotate the billing Postgres password', [], { status: 'failed', score: 0.3, plan: undefined }),
    );
    const b = open(5_000); // loads its window from the database (the statement Neo4j runs too)
    const search = (s: CypherStore) =>
      s.searchMemory('How do I rotate the Postgres password for billing?', 5, {}, { minRelevance: 0.45 });
    const written = await search(a);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      status: 'failed',
      score: 0.3,
      sharedTerms: ['rotate', 'postgres', 'password', 'billing'],
    });
    expect(await search(b)).toEqual(written);
  });

  it('keeps the newer of two copies of a counter (commits and refreshes may arrive in any order)', () => {
    const view = new KnowledgeView({
      specialists: ROSTER,
      proficiencies: [],
      teams: [{ id: 't1', pattern: 'invoic tune', uses: 5, successes: 5, avgScore: 0.9 }],
    });
    view.merge(
      {
        specialists: [],
        proficiencies: [],
        teams: [{ id: 't1', pattern: 'invoic tune', uses: 3, successes: 1, avgScore: 0.2 }],
      },
      { specialists: false },
    );
    expect(view.pickTeam('tune invoices', DEFAULT_REGISTRY_OPTIONS)).toMatchObject({ id: 't1', uses: 5 });
    expect(view.listSpecialists()).toHaveLength(ROSTER.length);
  });

  it('picks the same team as the registry rule it mirrors', () => {
    const words = [
      'invoice',
      'schema',
      'postgres',
      'deploy',
      'kubernetes',
      'report',
      'sales',
      'tune',
      'docs',
      'python',
    ];
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const sample = () => words.filter(() => rand() < 0.4).join(' ');
    const teams = Array.from({ length: 300 }, (_, i) => {
      const uses = 1 + Math.floor(rand() * 5);
      return {
        id: `t${i}`,
        pattern: [...new Set(sample().split(' ').filter(Boolean))].sort().join(' '),
        uses,
        successes: Math.floor(rand() * (uses + 1)),
        avgScore: rand(),
      };
    });
    const view = new KnowledgeView({ specialists: [], proficiencies: [], teams });
    for (let i = 0; i < 200; i++) {
      const query = sample();
      expect(view.pickTeam(query, DEFAULT_REGISTRY_OPTIONS)?.id).toBe(
        pickTeam(query, teams, DEFAULT_REGISTRY_OPTIONS)?.id,
      );
    }
  });
});
