/**
 * recordRun under concurrency, through real Kuzu in memory: calls that arrive while a write is in
 * flight are written together (group commit), and the result is exactly what recording them one
 * by one would store. A second CypherStore on the same database (fresh view, loaded from the
 * database) checks what was really written, not only the writer's in-memory view.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CypherStore, MAX_RUN_BATCH, type CypherExecutor } from '../../../src/knowledge/cypher-store.ts';
import { KuzuSession } from '../../../src/knowledge/kuzu/session.ts';
import { migrate } from '../../../src/knowledge/kuzu/schema.ts';
import { Q } from '../../../src/knowledge/kuzu/queries.ts';
import { kuzuExecutor } from '../../../src/knowledge/kuzu/store.ts';
import {
  applyObservation,
  applyTeamRun,
  DEFAULT_REGISTRY_OPTIONS,
  emptyProficiency,
  observationsOf,
  type ProficiencyTotals,
} from '../../../src/knowledge/registry.ts';
import { queryPattern } from '../../../src/knowledge/words.ts';
import type { RunRecord, TeamConfig } from '../../../src/knowledge/store.ts';
import { ROSTER, run, step } from '../../support/records.ts';

let session: KuzuSession;

/**
 * The Kuzu executor, counting write transactions and able to fail them: every write (failAll), or
 * any write whose statements carry a poisoned run id (a stand-in for a record the database refuses;
 * it fails at the transaction's first statement, so nothing is left to roll back).
 */
function countingExecutor() {
  const inner = kuzuExecutor(session);
  const stats = { writes: 0, failed: 0, failAll: false, poison: '', delayMs: 0 };
  const exec: CypherExecutor = {
    ...inner,
    write: async (fn) => {
      stats.writes++;
      try {
        if (stats.failAll) throw new Error('the disk is full');
        // A slower disk (or a busier machine): records keep arriving while the batch is written.
        if (stats.delayMs) await new Promise((r) => setTimeout(r, stats.delayMs));
        return await inner.write((run) =>
          fn((statement, params) => {
            if (stats.poison && JSON.stringify(params ?? {}).includes(stats.poison))
              throw new Error(`the database refuses ${stats.poison}`);
            return run(statement, params);
          }),
        );
      } catch (err) {
        stats.failed++;
        throw err;
      }
    },
    close: async () => {},
  };
  return { exec, stats };
}

const storeOn = (exec: CypherExecutor) => new CypherStore(exec, Q, DEFAULT_REGISTRY_OPTIONS);
/** Another process's view of the same database: everything it answers was read from the database. */
const reader = () => storeOn(kuzuExecutor(session));

const QUERIES = [
  'tune the invoices database schema',
  'deploy the billing service to kubernetes',
  'document the release notes',
];
const SPECIALISTS = ROSTER.map((s) => s.id);

/** Run i: a few steps by rotating specialists, scores and costs that vary (whole and fractional numbers, unknown costs). */
function workloadRun(i: number): RunRecord {
  const steps = [0, 1, 2].slice(0, 1 + (i % 3)).map((k) =>
    step(`s${k}`, SPECIALISTS[(i + k) % SPECIALISTS.length]!, {
      status: (i + k) % 5 === 0 ? 'failed' : 'succeeded',
      durationMs: (i * 37 + k) % 2 === 0 ? 1000 + i : 1000.25 + i,
      costUsd: (i + k) % 7 === 0 ? null : (i + k) % 4 === 0 ? 0 : 0.001 * ((i + k) % 9) + 0.0005,
    }),
  );
  return run(QUERIES[i % QUERIES.length]!, steps, { score: (i % 10) / 10 + 0.05 });
}

/** What recording `runs` one at a time, in order, teaches: the same rules, computed here. */
function expectedLearning(runs: RunRecord[]) {
  const domains = new Map(ROSTER.map((s) => [s.id, s.domains] as const));
  const profs = new Map<string, ProficiencyTotals>();
  const bump = (
    kind: 'specialist' | 'domain',
    subject: string,
    o: ReturnType<typeof observationsOf>[number]['observation'],
  ) => {
    const key = `${kind}:${subject}`;
    profs.set(key, applyObservation(profs.get(key) ?? emptyProficiency(subject, kind), o));
  };
  const teams = new Map<string, TeamConfig>();
  for (const r of runs) {
    for (const { specialistId, observation } of observationsOf(r)) {
      bump('specialist', specialistId, observation);
      for (const d of domains.get(specialistId) ?? []) bump('domain', d, observation);
    }
    const key = r.query;
    const team =
      teams.get(key) ??
      ({ id: key, pattern: key, specialists: [], plan: r.plan!, uses: 0, successes: 0, avgScore: 0 } as TeamConfig);
    teams.set(key, applyTeamRun(team, r));
  }
  return { profs, teams };
}

beforeEach(async () => {
  session = await KuzuSession.open(':memory:');
  await migrate(session);
});
afterEach(async () => {
  await session.close();
});

describe('recordRun under concurrency (group commit, Kuzu in memory)', () => {
  it('records many runs at once, each once, in fewer transactions, with statistics equal to the sum', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    const before = stats.writes;
    const runs = Array.from({ length: 150 }, (_, i) => workloadRun(i));

    await Promise.all(runs.map((r) => store.recordRun(r)));

    const transactions = stats.writes - before;
    // Records handed over in the same turn share a batch: one transaction per MAX_RUN_BATCH records.
    expect(transactions).toBe(Math.ceil(runs.length / MAX_RUN_BATCH));
    expect(stats.failed).toBe(0);

    const other = reader();
    expect(await other.listRuns({ limit: 1000 })).toHaveLength(runs.length);
    for (const r of runs.slice(0, 20)) {
      const stored = await other.getRun(r.id);
      expect(stored?.steps.map((s) => [s.id, s.status, s.durationMs, s.costUsd])).toEqual(
        r.steps.map((s) => [s.id, s.status, s.durationMs, s.costUsd]),
      );
      expect(stored?.score).toBe(r.score);
    }

    const { profs } = expectedLearning(runs);
    expect(profs.size).toBeGreaterThan(10);
    for (const [key, want] of profs) {
      const [kind, subject] = key.split(':') as ['specialist' | 'domain', string];
      for (const s of [store, other]) {
        const got = await s.getProficiency(subject, kind);
        expect(got, key).toMatchObject({ runs: want.runs, successes: want.successes });
        expect(got!.meanScore).toBeCloseTo(want.meanScore, 9);
        expect(got!.meanLatencyMs).toBeCloseTo(want.meanLatencyMs, 6);
        expect(got!.meanCostUsd).toBeCloseTo(want.meanCostUsd, 9);
      }
    }
    // Each (pattern, team of specialists) accumulated every run that used it, across batches.
    const uses = new Map<string, number>();
    for (const r of runs) {
      const key = `${queryPattern(r.query)}|${JSON.stringify([...new Set(r.steps.map((s) => s.specialist))].sort())}`;
      uses.set(key, (uses.get(key) ?? 0) + 1);
    }
    const teamRows = await session.query(
      "MATCH (t:Proficiency {kind: 'team'}) RETURN t.pattern AS pattern, t.specialists AS specialists, t.uses AS uses",
    );
    expect(
      new Map(teamRows.map((row) => [`${String(row.pattern)}|${String(row.specialists)}`, Number(row.uses)])),
    ).toEqual(uses);
    const links = await session.query("MATCH (:Run)-[:REUSED]->(t:Proficiency {kind: 'team'}) RETURN count(*) AS n");
    expect(Number(links[0]!.n)).toBe(runs.length);
  });

  it('aggregates one team across a batch: uses, successes and mean score as if recorded one by one', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    const scores = [0.9, 0.2, 0.75, 1, 0.5, 0.95, 0.85, 0.1, 0.7, 0.8, 0.65, 0.99];
    const runs = scores.map((score) =>
      run('migrate the orders table to postgres', [step('a', 'database'), step('b', 'writer')], { score }),
    );
    const before = stats.writes;
    await Promise.all(runs.map((r) => store.recordRun(r)));
    expect(stats.writes - before).toBeLessThan(runs.length);

    const { teams } = expectedLearning(runs);
    const want = teams.get('migrate the orders table to postgres')!;
    for (const s of [store, reader()]) {
      const team = await s.findTeamConfig('migrate the orders table to postgres');
      expect(team).toMatchObject({ uses: runs.length, successes: want.successes, specialists: ['database', 'writer'] });
      expect(team!.avgScore).toBeCloseTo(want.avgScore, 12);
    }
    // The next near-identical query reuses it, and a run that says so adds to it.
    const team = (await store.findTeamConfig('migrate the orders table to postgres'))!;
    await Promise.all([
      store.recordRun(
        run('migrate orders table postgres', [step('a', 'database'), step('b', 'writer')], {
          score: 0.9,
          teamConfigId: team.id,
        }),
      ),
      store.recordRun(
        run('migrate orders table postgres', [step('a', 'database'), step('b', 'writer')], {
          score: 0.9,
          teamConfigId: team.id,
        }),
      ),
    ]);
    expect((await reader().findTeamConfig('migrate the orders table to postgres'))?.uses).toBe(runs.length + 2);
  });

  it('a run recorded twice at once is stored once and teaches once', async () => {
    const store = storeOn(countingExecutor().exec);
    await store.upsertSpecialists(ROSTER);
    const first = run('write the changelog for the release', [step('a', 'writer'), step('b', 'writer')], {
      score: 0.9,
    });
    const again = { ...first, answer: 'a better answer', steps: [step('a', 'writer')] };
    await Promise.all([store.recordRun(first), store.recordRun(again), store.recordRun(workloadRun(1))]);

    const other = reader();
    const stored = await other.getRun(first.id);
    expect(stored?.answer).toBe('a better answer');
    expect(stored?.steps.map((s) => s.id)).toEqual(['a']);
    expect(await other.getProficiency('writer', 'specialist')).toMatchObject({ runs: 2 });
    expect((await other.findTeamConfig('write the changelog for the release'))?.uses).toBe(1);
  });

  it('a bad record fails only its own caller; the rest of its batch is recorded', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    const good = Array.from({ length: 30 }, (_, i) => workloadRun(i));
    // Refused by the database (see countingExecutor): its whole batch fails, then each record is written alone.
    const refused = run(QUERIES[0]!, [step('x', 'database')], { score: 0.9, id: 'run-the-database-refuses' });
    stats.poison = refused.id;
    // Refused before it joins a batch: not a number, and two steps with one id.
    const malformed = run(QUERIES[0]!, [step('y', 'database', { durationMs: Number.NaN })], { score: 0.9 });
    const duplicate = run(QUERIES[0]!, [step('z', 'database'), step('z', 'writer')], { score: 0.9 });

    // The first call starts a write; everything after it joins the next batch.
    const all = [good[0]!, ...good.slice(1, 15), refused, malformed, duplicate, ...good.slice(15)];
    const outcomes = await Promise.allSettled(all.map((r) => store.recordRun(r)));

    const rejected = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [[i, String(o.reason)] as const] : []));
    expect(
      rejected.map(([i]) => i),
      rejected.map(([, m]) => m).join('\n'),
    ).toEqual([15, 16, 17]);
    expect(rejected[0]![1]).toBe('Error: the database refuses run-the-database-refuses');
    expect(rejected[1]![1]).toMatch(
      /^TypeError: recordRun: run "run-.*", step "y": durationMs must be a finite number$/,
    );
    expect(rejected[2]![1]).toMatch(/^TypeError: recordRun: run "run-.*", step "z": two steps have this id$/);
    // The refused record's batch failed as a whole, then the record failed again on its own.
    expect(stats.failed).toBe(2);

    const other = reader();
    for (const bad of [refused, malformed, duplicate]) expect(await other.getRun(bad.id)).toBeUndefined();
    expect(await other.listRuns({ limit: 1000 })).toHaveLength(good.length);
    const { profs } = expectedLearning(good);
    for (const [key, want] of profs) {
      const [kind, subject] = key.split(':') as ['specialist' | 'domain', string];
      // Neither the failed batch nor the bad records taught anything, in the view or the database.
      for (const s of [store, other])
        expect(await s.getProficiency(subject, kind), key).toMatchObject({
          runs: want.runs,
          successes: want.successes,
        });
    }
    expect(await store.searchMemory('invoices database schema', 100)).toHaveLength(
      good.filter((r) => r.query === QUERIES[0]).length,
    );
  });

  it('when the database fails every write, every caller of the batch gets the error', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    stats.failAll = true;
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store.recordRun(workloadRun(i))));
    expect(outcomes.map((o) => o.status === 'rejected' && String(o.reason))).toEqual(
      Array(12).fill('Error: the disk is full'),
    );

    stats.failAll = false;
    const later = workloadRun(99);
    await store.recordRun(later);
    expect((await reader().listRuns({ limit: 100 })).map((r) => r.id)).toEqual([later.id]);
  });

  it('close() writes the records already handed to recordRun before it closes the database', async () => {
    const { exec } = countingExecutor();
    let settled = 0;
    let settledAtClose = -1;
    const store = storeOn({ ...exec, close: async () => void (settledAtClose = settled) });
    await store.upsertSpecialists(ROSTER);
    const runs = Array.from({ length: 40 }, (_, i) => workloadRun(i));
    const recorded = runs.map((r) => store.recordRun(r).then(() => void settled++));
    await store.close();
    expect(settledAtClose).toBe(runs.length);
    await Promise.all(recorded);
    expect(await reader().listRuns({ limit: 100 })).toHaveLength(runs.length);
  });

  it('stores whole and fractional numbers of one list exactly (Kuzu types a list by its first element)', async () => {
    const store = storeOn(countingExecutor().exec);
    await store.upsertSpecialists(ROSTER);
    const r = run(
      'profile the api',
      [
        step('a', 'database', { durationMs: 100, costUsd: 0, tokens: 10 }),
        step('b', 'writer', { durationMs: 100.5, costUsd: 0.0031, tokens: 10.5 }),
        step('c', 'devops', { durationMs: 7, costUsd: null, tokens: 0 }),
      ],
      { score: 0.9, costUsd: null },
    );
    await store.recordRun(r);

    const other = reader();
    const stored = await other.getRun(r.id);
    expect(stored?.steps.map((s) => [s.durationMs, s.costUsd, s.tokens])).toEqual([
      [100, 0, 10],
      [100.5, 0.0031, 10.5],
      [7, null, 0],
    ]);
    expect(stored?.costUsd).toBeNull();
    expect(await other.getProficiency('writer', 'specialist')).toMatchObject({
      runs: 1,
      meanScore: 0.9,
      meanLatencyMs: 100.5,
      meanCostUsd: 0.0031,
    });
    expect(await other.getProficiency('database', 'specialist')).toMatchObject({
      runs: 1,
      meanScore: 0.9,
      meanLatencyMs: 100,
      meanCostUsd: 0,
    });
  });
});

describe('deferred records (deferMs: the engine writes execution memory after the run)', () => {
  const DEFER = 5_000; // far longer than the test: only a read (or close) may write them

  it('records handed over within the window share one transaction; a read that needs them writes them at once', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    const before = stats.writes;
    const runs = Array.from({ length: 5 }, (_, i) => workloadRun(i));
    const written = runs.map((r) => store.recordRun(r, { deferMs: DEFER }));
    await new Promise((r) => setTimeout(r, 50));
    expect(stats.writes - before).toBe(0);
    // Searchable before it is written (the memory window is in memory).
    expect((await store.searchMemory(runs[0]!.query, 5, { callerId: 'tester' })).map((h) => h.runId)).toContain(
      runs[0]!.id,
    );
    expect(stats.writes - before).toBe(0);
    // A read of one of them writes them all, in one transaction, before it answers.
    expect(await store.getRun(runs[3]!.id)).toMatchObject({ id: runs[3]!.id, query: runs[3]!.query });
    await Promise.all(written);
    expect(stats.writes - before).toBe(1);
    expect(await reader().listRuns({ limit: 10 })).toHaveLength(runs.length);
  });

  it('records arriving while a batch is written wait for the next window instead of going one or two at a time', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    stats.delayMs = 40;
    const window = 200;
    const before = stats.writes;
    const t0 = Date.now();
    const written: Promise<void>[] = [];
    // One record every 5 ms for ~1 s: a steady stream, as runs finishing at 100 in flight give.
    for (let i = 0; i < 200; i++) {
      written.push(store.recordRun(workloadRun(i), { deferMs: window }));
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(written);
    const elapsed = Date.now() - t0;
    const transactions = stats.writes - before;
    // One transaction per window (plus the last), not one per write: the writer used to take the records that
    // arrived during each write at once (15 transactions here against 7, and on the benchmark 84 for 180 runs).
    expect(transactions).toBeLessThanOrEqual(Math.ceil(elapsed / window) + 2);
    expect(await reader().listRuns({ limit: 1000 })).toHaveLength(200);
    await store.close();
  });

  it('findTeamConfig waits for a record that could teach a team for the query, not for one that only confirms it', async () => {
    const { exec, stats } = countingExecutor();
    const store = storeOn(exec);
    await store.upsertSpecialists(ROSTER);
    const query = QUERIES[0]!;
    const teach = run(query, [step('s0', SPECIALISTS[0]!)], { score: 0.9 });
    void store.recordRun(teach, { deferMs: DEFER });
    // No team yet, and the waiting record would teach one: written first, then the team is found.
    const team = await store.findTeamConfig(query, { callerId: 'tester' });
    expect(team).toMatchObject({ uses: 1, successes: 1 });
    const writes = stats.writes;
    // A successful run that reused that very team only confirms it: no write for the lookup.
    const confirm = run(query, [step('s0', SPECIALISTS[0]!)], { score: 0.95, teamConfigId: team!.id });
    const confirmed = store.recordRun(confirm, { deferMs: DEFER });
    expect(await store.findTeamConfig(query, { callerId: 'tester' })).toMatchObject({ id: team!.id, uses: 1 });
    // Another caller's waiting record is not this caller's concern either.
    void store.recordRun(run(QUERIES[1]!, [step('s0', SPECIALISTS[1]!)], { callerId: 'other' }), { deferMs: DEFER });
    expect(await store.findTeamConfig(QUERIES[1]!, { callerId: 'tester' })).toBeUndefined();
    expect(stats.writes).toBe(writes);
    // A failed reuse could demote the team: the lookup waits for it.
    const failedReuse = run(query, [step('s0', SPECIALISTS[0]!)], { score: 0.1, teamConfigId: team!.id });
    void store.recordRun(failedReuse, { deferMs: DEFER });
    expect(await store.findTeamConfig(query, { callerId: 'tester' })).toMatchObject({ id: team!.id, uses: 3 });
    expect(stats.writes).toBe(writes + 1);
    await confirmed;
    await store.close();
  });
});
