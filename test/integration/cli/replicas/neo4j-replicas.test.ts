/**
 * Two `parley serve` replicas on one Neo4j, one Postgres and one Redis (issue 45; docs/deployment.md
 * "Replicas", docs/knowledge.md "Running on Neo4j"): the knowledge graph is shared, so what a run on A
 * teaches (execution memory, its approval, the proven team, the specialist's proficiency) is what B
 * reads, and a run on B adds to the same records. Skips, saying so, where Postgres, Redis or a JDK 21+
 * is missing; CI has them all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest } from '../../../../src/hitl/types.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';
import { neo4jMissing } from '../../../support/neo4j.ts';
import { useNeo4j } from '../../../support/use-neo4j.ts';
import { acceptAll, askedIn, replicasMissing, startRun, useReplicas } from '../../../support/replicas.ts';

const missing = replicasMissing() ?? neo4jMissing();
if (missing) console.log(`neo4j-replicas.test.ts: ${missing}`);

const db = missing ? undefined : useNeo4j();
const { replica, workspace, writeQuery } = useReplicas('parley-neo4j-replicas');
vi.setConfig({ testTimeout: 300_000 });

const approvals = async (url: string) =>
  ((await (await fetch(`${url}/api/approvals`)).json()) as { approvals: ApprovalRequest[] }).approvals;

describe.skipIf(!!missing)('replicas on one Neo4j, Postgres and Redis', () => {
  it('a run on A asked and answered across replicas lands in the one graph: B finds it, and its run adds to the same team', async () => {
    // A view refresh of 500 ms (5 s by default) so B reads what A wrote within the test.
    const neo4jEnv = {
      NEO4J_URI: db!.connection.uri,
      NEO4J_USER: db!.connection.user,
      NEO4J_PASSWORD: db!.connection.password,
      NEO4J_DATABASE: db!.connection.database,
      PARLEY_NEO4J_VIEW_REFRESH_MS: '500',
    };
    const [a, b] = await Promise.all([replica(neo4jEnv), replica(neo4jEnv)]);
    // Both ingest the shipped roster into the same graph at start, at the same time.
    await vi.waitFor(
      async () => {
        const [row] = await db!.cypher(
          "MATCH (s:Specialist) WHERE NOT s.kind IN ['source', 'tool'] AND s.available RETURN count(s) AS n",
        );
        expect(row!.n).toBeGreaterThan(0);
      },
      { timeout: 60_000, interval: 500 },
    );

    const query = writeQuery('ledger.txt', 'from A');
    const first = await startRun(a.url, { query, mode: 'orchestrate' }, 'approval.requested');
    const request = askedIn(first.events);
    await vi.waitFor(async () => expect((await approvals(b.url)).map((r) => r.id)).toEqual([request.id]));
    const answered = await postJson(`${b.url}/api/approve`, { request_id: request.id, decisions: acceptAll(request) });
    expect(answered.status).toBe(200);
    await first.done;
    expect(first.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(readFileSync(join(workspace, 'ledger.txt'), 'utf8')).toBe('from A');

    // The run is in the graph, with the approval B decided, and B answers it from there.
    await vi.waitFor(
      async () =>
        expect(
          await db!.cypher(
            'MATCH (r:Run {id: $id})-[:DECIDED]->(d:Decision {kind: $kind}) RETURN r.status AS status, d.resolvedBy AS by',
            { id: first.runId, kind: 'tool' },
          ),
        ).toEqual([{ status: 'completed', by: 'human' }]),
      { timeout: 30_000, interval: 250 },
    );
    const onB = await fetch(`${b.url}/api/runs/${first.runId}`);
    expect(onB.status).toBe(200);
    const detail = (await onB.json()) as { status: string; approvals: { id: string; decision?: unknown }[] };
    expect(detail.status).toBe('completed');
    expect(detail.approvals.map((x) => x.id)).toEqual([request.id]);
    await vi.waitFor(
      async () => {
        const res = await fetch(`${b.url}/api/memory?q=${encodeURIComponent('write ledger.txt workspace files')}`);
        const { hits } = (await res.json()) as { hits: { runId: string }[] };
        expect(hits.map((h) => h.runId)).toContain(first.runId);
      },
      { timeout: 30_000, interval: 250 },
    );

    // The same request on B: recorded into the same team and proficiency records as A's run.
    const teams = () =>
      db!.cypher("MATCH (t:Proficiency {kind: 'team'}) RETURN t.id AS id, t.uses AS uses ORDER BY t.id");
    const [team] = await teams();
    expect(team).toMatchObject({ uses: 1 });
    const second = await startRun(b.url, { query, mode: 'orchestrate' }, 'approval.requested');
    const again = askedIn(second.events);
    expect((await postJson(`${a.url}/api/approve`, { request_id: again.id, decisions: acceptAll(again) })).status).toBe(
      200,
    );
    await second.done;
    expect(second.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    await vi.waitFor(async () => expect(await teams()).toEqual([{ id: team!.id, uses: 2 }]), {
      timeout: 30_000,
      interval: 250,
    });
    expect(await db!.cypher('MATCH (r:Run) RETURN count(r) AS n')).toEqual([{ n: 2 }]);
  });
});

if (missing) describe('replicas on one Neo4j, Postgres and Redis', () => it.skip(missing, () => {}));
