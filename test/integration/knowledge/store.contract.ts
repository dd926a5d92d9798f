/**
 * The KnowledgeStore contract: every backend runs this same suite (kuzu.test.ts always,
 * neo4j.test.ts when NEO4J_URI is set). Each test opens a fresh, empty store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeStore, RunRecord } from '../../../src/knowledge/store.ts';
import { MEMORY_MIN_RELEVANCE } from '../../../src/knowledge/memory-relevance.ts';
import { ROSTER, run, specialist, step, tool } from '../../support/records.ts';

/** What a contract test may ask of the store it opens. */
export interface ContractStoreOptions {
  /** The store's memoryWindow: how many recent runs searchMemory searches. */
  memoryWindow?: number;
}

export function defineStoreContract(open: (options?: ContractStoreOptions) => Promise<KnowledgeStore>): void {
  let store: KnowledgeStore;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store.close();
  });

  describe('registry', () => {
    it('round-trips sources, including an unavailable one with its error', async () => {
      await store.upsertSource({
        id: 'mcp:fs',
        kind: 'mcp',
        location: 'mcp_config.json',
        contentHash: 'h1',
        ingestedAt: '2026-01-01T00:00:00.000Z',
        status: 'ok',
      });
      await store.upsertSource({
        id: 'mcp:down',
        kind: 'mcp',
        location: 'mcp_config.json',
        contentHash: 'h2',
        ingestedAt: '2026-01-01T00:00:00.000Z',
        status: 'unavailable',
        error: 'connect ECONNREFUSED',
      });
      expect(await store.getSource('mcp:fs')).toEqual({
        id: 'mcp:fs',
        kind: 'mcp',
        location: 'mcp_config.json',
        contentHash: 'h1',
        ingestedAt: '2026-01-01T00:00:00.000Z',
        status: 'ok',
      });
      expect((await store.getSource('mcp:down'))?.error).toBe('connect ECONNREFUSED');
      await store.upsertSource({
        id: 'mcp:fs',
        kind: 'mcp',
        location: 'mcp_config.json',
        contentHash: 'h3',
        ingestedAt: '2026-01-02T00:00:00.000Z',
        status: 'ok',
      });
      expect((await store.getSource('mcp:fs'))?.contentHash).toBe('h3');
      expect(await store.getSource('nope')).toBeUndefined();
    });

    it('upserts specialists idempotently and filters them by kind, domain, availability and text', async () => {
      await store.upsertSpecialists(ROSTER);
      await store.upsertSpecialists(ROSTER);
      await store.upsertSpecialists([
        specialist('fs', 'Reads and writes files in the workspace.', {
          kind: 'mcp',
          endpoint: 'fs',
          sourceId: 'mcp:fs',
          available: false,
          unavailableReason: 'spawn ENOENT',
        }),
      ]);
      const all = await store.listSpecialists();
      expect(all.map((s) => s.id).sort()).toEqual([...ROSTER.map((s) => s.id), 'fs'].sort());
      expect(await store.getSpecialist('database')).toEqual(ROSTER[2]);
      expect((await store.listSpecialists({ kind: 'mcp' })).map((s) => s.id)).toEqual(['fs']);
      expect((await store.listSpecialists({ domain: 'programming' })).map((s) => s.id).sort()).toEqual([
        'python-programmer',
        'typescript-programmer',
      ]);
      expect((await store.listSpecialists({ available: false })).map((s) => s.id)).toEqual(['fs']);
      expect((await store.listSpecialists({ text: 'kubernetes' })).map((s) => s.id)).toEqual(['devops']);
      expect((await store.getSpecialist('fs'))?.unavailableReason).toBe('spawn ENOENT');
      expect(await store.getSpecialist('nobody')).toBeUndefined();
    });

    it('round-trips tools with schemas and annotations, per server', async () => {
      const write = tool('fs', 'write_file', {
        annotations: { destructiveHint: true, readOnlyHint: false },
        inputSchema: {
          type: 'object',
          required: ['path', 'content'],
          properties: { path: { type: 'string' }, content: { type: 'string' } },
        },
      });
      await store.upsertTools([tool('fs', 'read_file'), write, tool('mem', 'read_graph')]);
      await store.upsertTools([write]);
      expect((await store.listTools()).map((t) => t.id)).toEqual(['fs/read_file', 'fs/write_file', 'mem/read_graph']);
      expect((await store.listTools('fs')).map((t) => t.id)).toEqual(['fs/read_file', 'fs/write_file']);
      expect(await store.getTool('fs/write_file')).toEqual(write);
      expect(await store.getTool('fs/nope')).toBeUndefined();
    });

    it('marks specialists and tools its source no longer lists as gone, keeping the rest', async () => {
      await store.upsertTools([tool('fs', 'read_file'), tool('fs', 'move_file')]);
      await store.upsertSpecialists([
        specialist('fs', 'files', { kind: 'mcp', sourceId: 'mcp:fs', tools: ['fs/read_file', 'fs/move_file'] }),
        specialist('fs-old', 'old files', { kind: 'mcp', sourceId: 'mcp:fs' }),
        specialist('other', 'other source', { sourceId: 'skills:x' }),
      ]);
      await store.markGone('mcp:fs', ['fs'], ['fs/read_file']);
      expect((await store.getTool('fs/read_file'))?.available).toBe(true);
      expect((await store.getTool('fs/move_file'))?.available).toBe(false);
      expect((await store.getSpecialist('fs'))?.available).toBe(true);
      const old = await store.getSpecialist('fs-old');
      expect(old?.available).toBe(false);
      expect(old?.unavailableReason).toMatch(/no longer listed/);
      expect((await store.getSpecialist('other'))?.available).toBe(true);
      // A source that lists nothing any more (empty keep lists).
      await store.markGone('skills:x', [], []);
      expect((await store.getSpecialist('other'))?.available).toBe(false);
    });
  });

  describe('retrieval', () => {
    it('returns the relevant specialists for a query, best first, at most k, never unavailable ones', async () => {
      await store.upsertSpecialists([
        ...ROSTER,
        specialist('old-sql', 'SQL schemas and migrations for Postgres databases.', { available: false }),
      ]);
      const sql = await store.retrieveSpecialists('Design a Postgres schema with indexes for invoices', 3);
      expect(sql[0]?.specialist.id).toBe('database');
      expect(sql.length).toBeLessThanOrEqual(3);
      expect(sql.map((c) => c.specialist.id)).not.toContain('old-sql');
      expect(sql[0]?.relevance).toBeGreaterThan(0);
      expect(sql[0]?.relevance).toBeLessThanOrEqual(1);

      const py = await store.retrieveSpecialists('fix the failing pytest tests in my python script', 7);
      expect(py[0]?.specialist.id).toBe('python-programmer');
      const ops = await store.retrieveSpecialists('deploy it to Kubernetes with a CI pipeline', 7);
      expect(ops[0]?.specialist.id).toBe('devops');
      expect(await store.retrieveSpecialists('zzzz qqqq', 7)).toEqual([]);
    });

    it('ranks for what the task needs: a task that writes a file puts the server whose tools write files first', async () => {
      const files = 'mcp:files';
      await store.upsertTools([
        tool('files', 'write_file', {
          description: 'Create a new file or overwrite an existing one.',
          annotations: { destructiveHint: true },
          sourceId: files,
        }),
        tool('files', 'read_file', { description: 'Read a file.', sourceId: files }),
        tool('notes', 'add_note', {
          description: 'Add a note to the shared notes.',
          annotations: { destructiveHint: false },
          sourceId: 'mcp:notes',
        }),
      ]);
      await store.upsertSpecialists([
        ...ROSTER.map((s) => (s.id === 'writer' ? { ...s, tools: ['files/write_file'] } : s)),
        specialist('files', 'Reads and writes files in the workspace.', {
          kind: 'mcp',
          endpoint: 'files',
          tools: ['files/read_file', 'files/write_file'],
          sourceId: files,
        }),
        specialist('notes', 'Keeps release notes, meeting notes and team notes.', {
          kind: 'mcp',
          endpoint: 'notes',
          tools: ['notes/add_note'],
          sourceId: 'mcp:notes',
        }),
      ]);
      const ids = async (q: string) => (await store.retrieveSpecialists(q, 7)).map((c) => c.specialist.id);
      // By text alone the notes server and the writer come first; the task needs a file written.
      expect((await ids('Write the release notes and save them to notes.md')).slice(0, 2)).toEqual(['files', 'writer']);
      expect((await ids('Write the release notes'))[0]).not.toBe('files');
      // A server that can write files is a candidate even when it shares no word with the task.
      expect(await ids('Put the postgres migration plan in plan.md')).toContain('files');
      // Once its write tool is gone, it no longer fits.
      await store.markGone(files, ['files'], ['files/read_file']);
      expect((await ids('Write the release notes and save them to notes.md'))[0]).not.toBe('files');
    });

    it('prefers the specialist with the better record when relevance ties', async () => {
      const text = 'Analyses quarterly revenue spreadsheets and forecasts.';
      await store.upsertSpecialists([specialist('alpha-analyst', text), specialist('beta-analyst', text)]);
      const before = await store.retrieveSpecialists('forecast quarterly revenue', 2);
      expect(before).toHaveLength(2);
      expect(before[0]?.relevance).toBeCloseTo(before[1]!.relevance, 6);

      // alpha's runs finish without errors but the verifier scores them low; beta's score high.
      for (let i = 0; i < 3; i++) {
        await store.recordRun(run(`revenue forecast ${i}`, [step('s1', 'alpha-analyst')], { score: 0.3 }));
        await store.recordRun(run(`revenue outlook ${i}`, [step('s1', 'beta-analyst')], { score: 0.95 }));
      }
      const after = await store.retrieveSpecialists('forecast quarterly revenue', 2);
      expect(after.map((c) => c.specialist.id)).toEqual(['beta-analyst', 'alpha-analyst']);
      expect(after[0]?.relevance).toBeCloseTo(after[1]!.relevance, 6);
      expect(after[0]!.score).toBeGreaterThan(after[1]!.score);
      expect(after[0]?.proficiency?.successes).toBe(3);
      expect(after[1]?.proficiency?.successes).toBe(0);
    });
  });

  describe('execution memory', () => {
    it('records a run with its steps and tool calls and reads it back', async () => {
      await store.upsertSpecialists(ROSTER);
      await store.upsertTools([tool('fs', 'write_file')]);
      const r = run(
        'write the schema docs',
        [
          step('research', 'database', { toolCalls: [{ tool: 'fs/write_file', status: 'denied' }] }),
          step('write', 'writer', { costUsd: null, status: 'failed', error: 'model timeout', output: undefined }),
        ],
        { teamConfigId: undefined },
      );
      await store.recordRun(r);
      const back = await store.getRun(r.id);
      expect(back).toEqual(r);
      expect(await store.getRun('missing')).toBeUndefined();
    });

    it('lists runs newest first with status/thread filters and a limit', async () => {
      const a = run('first question', [], { status: 'completed', plan: undefined, score: null });
      const b = run('second question', [], {
        status: 'failed',
        plan: undefined,
        score: null,
        error: 'boom',
        threadId: 'thread-2',
      });
      const c = run('third question', [], { status: 'completed', plan: undefined, score: null });
      for (const r of [a, b, c]) await store.recordRun(r);
      expect((await store.listRuns()).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.listRuns({ status: 'failed' })).map((s) => s.id)).toEqual([b.id]);
      expect((await store.listRuns({ threadId: 'thread-2' })).map((s) => s.id)).toEqual([b.id]);
      expect((await store.listRuns({ protocol: c.protocol })).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
      expect(await store.listRuns({ protocol: 'no-such-protocol' })).toEqual([]);
      expect((await store.listRuns({ limit: 1 })).map((s) => s.id)).toEqual([c.id]);
      expect((await store.listRuns({ limit: 1 }))[0]).toEqual({
        id: c.id,
        query: c.query,
        status: 'completed',
        startedAt: c.startedAt,
        durationMs: c.durationMs,
        score: null,
        threadId: c.threadId,
        protocol: c.protocol,
        callerId: c.callerId,
      });
    });

    it("keeps a fork's origin on its record and its summary; a run recorded again keeps it, other runs have none", async () => {
      const parent = run('draft the release notes', [], { plan: undefined, score: null });
      const forkedFrom = { runId: parent.id, checkpoint: 'cp-4' };
      const child = run('draft the release notes, shorter', [], { plan: undefined, score: null, forkedFrom });
      await store.recordRun(parent);
      await store.recordRun(child);
      expect(await store.getRun(child.id)).toEqual(child);
      expect(await store.getRun(parent.id)).not.toHaveProperty('forkedFrom');
      const listed = await store.listRuns();
      expect(listed.find((s) => s.id === child.id)?.forkedFrom).toEqual(forkedFrom);
      expect(listed.find((s) => s.id === parent.id)).not.toHaveProperty('forkedFrom');
      // Recorded again (a recovery hands a record over twice): replaced whole, the origin with it.
      const again = { ...child, answer: 'shorter notes', forkedFrom: { runId: parent.id, checkpoint: 'cp-5' } };
      await store.recordRun(again);
      expect(await store.getRun(child.id)).toEqual(again);
      // A record of the wrong shape fails its own caller, never the batch.
      const bad = { ...run('bad origin', []), forkedFrom: { runId: 7 } } as unknown as RunRecord;
      await expect(store.recordRun(bad)).rejects.toThrow(/forkedFrom must be \{ runId, checkpoint \} when set/);
      expect(await store.getRun(bad.id)).toBeUndefined();
    });

    it('learns proficiency from the verifier score, not from the absence of errors, and only once per run', async () => {
      await store.upsertSpecialists(ROSTER);
      const low = run('tune the slow SQL query', [step('s1', 'database', { durationMs: 1000, costUsd: 0.01 })], {
        score: 0.5,
      });
      await store.recordRun(low);
      await store.recordRun(low); // recorded again: replaces, does not count twice
      let p = await store.getProficiency('database', 'specialist');
      expect(p).toMatchObject({ subject: 'database', kind: 'specialist', runs: 1, successes: 0 });
      expect(p?.meanScore).toBeCloseTo(0.5);

      await store.recordRun(
        run('add an index', [step('s1', 'database', { durationMs: 3000, costUsd: 0.03 })], { score: 0.9 }),
      );
      p = await store.getProficiency('database', 'specialist');
      expect(p).toMatchObject({ runs: 2, successes: 1 });
      expect(p?.meanScore).toBeCloseTo(0.7);
      expect(p?.meanLatencyMs).toBeCloseTo(2000);
      expect(p?.meanCostUsd).toBeCloseTo(0.02);
      const domain = await store.getProficiency('sql', 'domain');
      expect(domain).toMatchObject({ kind: 'domain', runs: 2, successes: 1 });

      // A run nobody verified (direct answer) teaches nothing.
      await store.recordRun(run('hello', [step('s1', 'database')], { score: null }));
      expect((await store.getProficiency('database', 'specialist'))?.runs).toBe(2);
      expect(await store.getProficiency('writer', 'specialist')).toBeUndefined();
    });

    it('keeps every update when runs are recorded concurrently', async () => {
      await store.upsertSpecialists(ROSTER);
      const steps = [step('a', 'database'), step('b', 'writer')];
      const runs = Array.from({ length: 12 }, (_, i) =>
        run('tune the invoices database', steps, { score: i % 3 ? 0.9 : 0.5 }),
      );
      await Promise.all([
        ...runs.map((r) => store.recordRun(r)),
        store.retrieveSpecialists('database', 3),
        store.findTeamConfig('tune the invoices database'),
      ]);
      expect(await store.getProficiency('database', 'specialist')).toMatchObject({ runs: 12, successes: 8 });
      expect(await store.getProficiency('sql', 'domain')).toMatchObject({ runs: 12, successes: 8 });
      expect(await store.findTeamConfig('tune the invoices database')).toMatchObject({ uses: 12, successes: 8 });
      expect((await store.listRuns({ limit: 100 })).length).toBe(12);
    });

    it('finds a proven TeamConfig for a near-identical query and not for an unrelated one', async () => {
      await store.upsertSpecialists(ROSTER);
      const steps = [step('schema', 'database'), step('docs', 'writer')];
      await store.recordRun(run('Design a Postgres schema for the invoices service', steps, { score: 0.9 }));
      await store.recordRun(run('design the postgres schema for the invoices service', steps, { score: 0.8 }));

      const team = await store.findTeamConfig('Please design a postgres schema for our invoices service');
      expect(team).toBeDefined();
      expect(team?.specialists).toEqual(['database', 'writer']);
      expect(team?.uses).toBe(2);
      expect(team?.successes).toBe(2);
      expect(team?.avgScore).toBeCloseTo(0.85);
      expect(team?.plan.steps.map((s) => s.specialist)).toEqual(['database', 'writer']);
      expect(await store.findTeamConfig('deploy the frontend to kubernetes')).toBeUndefined();

      // Reusing it with a poor verifier score lowers its record until it is no longer reused.
      for (let i = 0; i < 3; i++) {
        await store.recordRun(
          run('design a postgres schema for the invoices service', steps, { score: 0.2, teamConfigId: team!.id }),
        );
      }
      expect(await store.findTeamConfig('design a postgres schema for the invoices service')).toBeUndefined();
    });

    it('searches memory for past runs relevant to a query', async () => {
      await store.recordRun(
        run('How do I rotate the Postgres password?', [], { answer: 'Use ALTER ROLE ... PASSWORD', plan: undefined }),
      );
      await store.recordRun(run('Write a haiku about autumn', [], { answer: 'Leaves fall softly', plan: undefined }));
      const hits = await store.searchMemory('postgres password rotation', 5);
      expect(hits[0]?.query).toBe('How do I rotate the Postgres password?');
      expect(hits[0]?.answer).toBe('Use ALTER ROLE ... PASSWORD');
      // Absolute: two of the three topical words of each request shared ("rotation" is not "rotate").
      expect(hits[0]?.relevance).toBeCloseTo(2 / 3, 6);
      expect(hits[0]?.sharedTerms).toEqual(['postgres', 'password']);
      expect(hits.map((h) => h.query)).not.toContain('Write a haiku about autumn');
    });

    it('holds memory to an absolute relevance: an unrelated best hit scores low, and minRelevance leaves it out', async () => {
      // The answer shares words with the unrelated request below: the search finds the run by them,
      // but relevance compares the requests.
      const earlier = run('Compare the best Python HTTP client libraries', [], {
        answer: 'httpx for most teams; requests for a simple design; aiohttp for servers',
        plan: undefined,
      });
      await store.recordRun(earlier);
      const unrelated = 'Design a team structure for the platform group';
      const [found] = await store.searchMemory(unrelated, 5);
      expect(found?.runId, 'the text search still finds it').toBe(earlier.id);
      expect(found!.relevance).toBe(0);
      expect(found!.sharedTerms).toEqual([]);
      expect(await store.searchMemory(unrelated, 5, {}, { minRelevance: MEMORY_MIN_RELEVANCE })).toEqual([]);

      const related = 'Which Python HTTP client library should I pick?';
      const kept = await store.searchMemory(related, 5, {}, { minRelevance: MEMORY_MIN_RELEVANCE });
      expect(kept.map((h) => h.runId)).toEqual([earlier.id]);
      expect(kept[0]!.relevance).toBeGreaterThanOrEqual(MEMORY_MIN_RELEVANCE);
      expect(kept[0]!.sharedTerms).toEqual(['python', 'http', 'client', 'library']);
      expect(kept[0]!.status).toBe('completed');
      // The same request scores 1 whatever else the window holds.
      await store.recordRun(run('Write a haiku about autumn', [], { plan: undefined }));
      const [same] = await store.searchMemory(earlier.query, 5, {}, { minRelevance: MEMORY_MIN_RELEVANCE });
      expect(same).toMatchObject({ runId: earlier.id, relevance: 1 });
    });

    it('finds a run by the whole of a long answer, whole by default and cut to answerChars when asked', async () => {
      const answer = `Rotate the key with vault. ${'Then wait for the lease to expire. '.repeat(60)}Finally purge the zebra cache.`;
      const written = run('How do I rotate the signing key?', [], { answer, plan: undefined });
      await store.recordRun(written);
      // Its last words (past what the in-memory window keeps of it) still find it.
      const [hit] = await store.searchMemory('zebra cache purge', 5);
      expect(hit).toMatchObject({ runId: written.id, answer });
      expect(hit?.answerChars).toBeUndefined();
      const [cut] = await store.searchMemory('zebra cache purge', 5, {}, { answerChars: 100 });
      expect(cut).toMatchObject({ runId: written.id, answer: answer.slice(0, 100), answerChars: answer.length });
    });

    it('finds a run in memory as soon as recordRun returns, and a re-recorded run by its new text', async () => {
      // Read first, so the store's in-memory state exists before the run is written.
      expect(await store.searchMemory('terraform drift remediation', 5)).toEqual([]);
      const first = run('Fix terraform drift in staging', [], {
        answer: 'Run terraform plan, then import the bucket',
        score: 0.7,
        plan: undefined,
      });
      await store.recordRun(first);
      expect(await store.searchMemory('terraform drift remediation', 5)).toEqual([
        {
          runId: first.id,
          query: first.query,
          answer: 'Run terraform plan, then import the bucket',
          score: 0.7,
          status: 'completed',
          relevance: expect.closeTo(2 / Math.sqrt(12), 6),
          sharedTerms: ['terraform', 'drift'],
        },
      ]);
      // A run without an answer or score is still found by its query.
      const failed = run('Rotate kafka certificates', [], {
        status: 'failed',
        answer: undefined,
        score: null,
        plan: undefined,
      });
      await store.recordRun(failed);
      expect(await store.searchMemory('kafka certificates', 5)).toEqual([
        {
          runId: failed.id,
          query: failed.query,
          answer: '',
          score: null,
          status: 'failed',
          relevance: expect.closeTo(2 / Math.sqrt(6), 6),
          sharedTerms: ['kafka', 'certificates'],
        },
      ]);
      // Recorded again (same id): found by its new answer, no longer by the old one, and once only.
      await store.recordRun({ ...first, answer: 'Rebuilt the staging VPC', score: 0.9 });
      expect((await store.searchMemory('import bucket', 5)).map((h) => h.runId)).not.toContain(first.id);
      const again = await store.searchMemory('staging vpc', 5);
      expect(again.map((h) => [h.runId, h.score])).toEqual([[first.id, 0.9]]);
      expect(await store.searchMemory('terraform', 0)).toEqual([]);
      expect(await store.searchMemory('the of and', 5)).toEqual([]);
    });

    it('searches only the most recent runs, as many as its memory window (by startedAt, not by recording order)', async () => {
      await store.close();
      store = await open({ memoryWindow: 3 });
      const at = (second: number) => new Date(Date.UTC(2026, 2, 1, 0, 0, second)).toISOString();
      const runs = [1, 2, 3, 4, 5].map((n) =>
        run(`Tune postgres vacuum settings, attempt ${n}`, [], { startedAt: at(n), plan: undefined }),
      );
      // Recorded out of order: the oldest two come last and must not displace newer ones.
      for (const r of [runs[2]!, runs[3]!, runs[4]!, runs[0]!, runs[1]!]) await store.recordRun(r);
      const hits = await store.searchMemory('postgres vacuum settings', 10);
      expect(hits.map((h) => h.runId).sort()).toEqual([runs[2]!.id, runs[3]!.id, runs[4]!.id].sort());
      expect(hits[0]?.relevance).toBeGreaterThan(0.7);
      // Older runs are still stored; only the search is bounded.
      expect((await store.listRuns({ limit: 10 })).length).toBe(5);
    });

    it('records approvals (requested, then decided) and council decisions', async () => {
      const requested = {
        id: 'ap-1',
        runId: 'run-x',
        kind: 'tool' as const,
        request: { toolCalls: [{ tool: 'fs/write_file', args: { path: 'a.txt' } }] },
        requestedAt: '2026-01-01T00:00:00.000Z',
      };
      await store.recordApproval(requested);
      expect(await store.listApprovals('run-x')).toEqual([requested]);
      const decided = {
        ...requested,
        decision: { kind: 'tool', decisions: { c1: { type: 'accept' } } },
        resolvedBy: 'human' as const,
        actor: 'key-1',
        resolvedAt: '2026-01-01T00:00:05.000Z',
      };
      await store.recordApproval(decided);
      expect(await store.listApprovals('run-x')).toEqual([decided]);
      expect(await store.listApprovals('run-y')).toEqual([]);

      const verdict = {
        recommendation: 'Ship it',
        keyInsights: ['a'],
        blindSpots: [],
        consensus: 'yes',
        dissent: '',
        nextStep: 'deploy',
        confidence: 0.8,
      };
      await store.recordDecision({
        id: 'd1',
        runId: 'run-x',
        question: 'Ship?',
        verdict,
        decidedAt: '2026-01-01T00:00:00.000Z',
      });
      await store.recordDecision({
        id: 'd2',
        runId: 'run-x',
        question: 'Ship again?',
        verdict,
        decidedAt: '2026-01-02T00:00:00.000Z',
      });
      expect((await store.listDecisions()).map((d) => d.id)).toEqual(['d2', 'd1']);
      expect((await store.listDecisions(1))[0]?.verdict).toEqual(verdict);
    });

    it("scopes runs, memory, teams and decisions to their caller: one caller's are never another's", async () => {
      await store.upsertSpecialists(ROSTER);
      const steps = [step('s1', 'database')];
      const query = 'Design a Postgres schema for the billing ledger';
      const mine = run(query, steps, { callerId: 'alice', answer: 'ledger answer for alice', threadId: 'shared' });
      await store.recordRun(mine);
      await store.recordRun(
        run('Write a haiku about the sea', [], { callerId: 'bob', plan: undefined, threadId: 'shared' }),
      );

      expect((await store.listRuns({ callerId: 'alice' })).map((r) => r.id)).toEqual([mine.id]);
      expect((await store.listRuns({ callerId: 'bob', threadId: 'shared' })).map((r) => r.id)).not.toContain(mine.id);
      expect((await store.listRuns()).length).toBe(2);
      expect((await store.getRun(mine.id))?.callerId).toBe('alice');

      expect(
        (await store.searchMemory('postgres billing ledger', 5, { callerId: 'alice' })).map((h) => h.runId),
      ).toEqual([mine.id]);
      expect(await store.searchMemory('postgres billing ledger', 5, { callerId: 'bob' })).toEqual([]);

      expect(await store.findTeamConfig(query, { callerId: 'alice' })).toMatchObject({ callerId: 'alice', uses: 1 });
      expect(await store.findTeamConfig(query, { callerId: 'bob' })).toBeUndefined();
      // The same team taught by another caller is that caller's own record, never merged into alice's.
      await store.recordRun(run(query, steps, { callerId: 'bob' }));
      const bobs = await store.findTeamConfig(query, { callerId: 'bob' });
      expect(bobs).toMatchObject({ callerId: 'bob', uses: 1 });
      expect(bobs!.id).not.toBe((await store.findTeamConfig(query, { callerId: 'alice' }))!.id);
      // Statistics without content stay shared: the specialist learnt from both callers' runs.
      expect((await store.getProficiency('database', 'specialist'))?.runs).toBe(2);

      const verdict = {
        recommendation: 'Ship it',
        keyInsights: [],
        blindSpots: [],
        consensus: '',
        dissent: '',
        nextStep: 'deploy',
        confidence: 0.8,
      };
      await store.recordDecision({
        id: 'da',
        runId: mine.id,
        callerId: 'alice',
        question: 'Ship?',
        verdict,
        decidedAt: '2026-01-01T00:00:00.000Z',
      });
      await store.recordDecision({
        id: 'db',
        runId: 'run-b',
        callerId: 'bob',
        question: 'Ship?',
        verdict,
        decidedAt: '2026-01-02T00:00:00.000Z',
      });
      expect((await store.listDecisions(10, { callerId: 'alice' })).map((d) => [d.id, d.callerId])).toEqual([
        ['da', 'alice'],
      ]);
      expect((await store.listDecisions(10)).map((d) => d.id)).toEqual(['db', 'da']);
      // One by id, with its owner: the routes decide who may see it.
      expect(await store.getDecision('da')).toMatchObject({ id: 'da', callerId: 'alice', question: 'Ship?', verdict });
      expect(await store.getDecision('nope')).toBeUndefined();
    });
  });
}
