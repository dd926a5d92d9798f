/**
 * The run store on Postgres (PARLEY_DATABASE_URL) through a real `parley serve`: a run waiting on an
 * approval survives kill -9, and the state it resumes from is the database's — the data dir's embedded
 * store is deleted before the restart — then POST /api/approve finishes it and the file is written.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { postJson, readSse } from '../../support/protocols/sse-read.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';

const available = postgresBinDir() !== undefined;
if (!available) console.log(`restart-postgres.test.ts: ${POSTGRES_MISSING}`);
vi.setConfig({ testTimeout: 120_000 });

let pg: TestPostgres | undefined;
const { serve, tempDataDir } = useServeProcesses('parley-restart-pg', () => ({ PARLEY_DATABASE_URL: pg!.url }));
beforeAll(async () => {
  if (!available) return;
  ensureBuilt();
  pg = await startPostgres();
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await pg?.stop();
});

describe.skipIf(!available)('the run and thread stores on Postgres', () => {
  it('kill -9: the approval waits again from the database (the embedded store deleted), /api/approve finishes the run', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    expect(first.log()).toContain('store: Postgres at postgres://postgres@127.0.0.1');
    const res = await postJson(`${first.url}/stream`, {
      query: writeFileQuery(dataDir, 'pg.txt', 'from postgres'),
      mode: 'orchestrate',
      threadId: 'pg-thread',
    });
    const stream = readSse(res);
    let asked: GraphEventOf<'approval.requested'> | undefined;
    for (let m = await stream.next(); !m.done; m = await stream.next()) {
      const e = m.value.json as GraphEvent;
      if (e.type === 'approval.requested') {
        asked = e;
        break;
      }
    }
    expect(asked).toBeDefined();
    first.child.kill('SIGKILL');
    await first.exit;
    await stream.return(undefined);
    rmSync(join(dataDir, 'store'), { recursive: true, force: true });

    const second = await serve(dataDir);
    const listed = (await (await fetch(`${second.url}/api/approvals`)).json()) as { approvals: { id: string }[] };
    expect(listed.approvals.map((a) => a.id)).toEqual([asked!.request.id]);
    const call = asked!.request.kind === 'tool' ? asked!.request.toolCalls[0]! : undefined;
    const approved = await postJson(`${second.url}/api/approve`, {
      request_id: asked!.request.id,
      decisions: { [call!.toolCallId]: 'accept' },
    });
    expect(approved.status).toBe(200);
    // The file server creates the file, then writes it: wait for the content, not for the name.
    const file = join(dataDir, 'workspace', 'pg.txt');
    await vi.waitFor(() => expect(existsSync(file) && readFileSync(file, 'utf8')).toBe('from postgres'), {
      timeout: 30_000,
    });
    const events = await fetch(`${second.url}/api/runs/${asked!.runId}/events`, {
      headers: { accept: 'application/json' },
    });
    const all = (await events.json()) as GraphEvent[];
    await vi.waitFor(async () => {
      const again = (await (
        await fetch(`${second.url}/api/runs/${asked!.runId}/events`, { headers: { accept: 'application/json' } })
      ).json()) as GraphEvent[];
      expect(again.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    });
    expect(all[0]).toMatchObject({ type: 'run.started', seq: 1 });
    // The finished turn is in the database's thread store: a third process without the embedded store lists it.
    const threadId = 'pg-thread';
    second.child.kill('SIGKILL');
    await second.exit;
    rmSync(join(dataDir, 'store'), { recursive: true, force: true });
    const third = await serve(dataDir);
    const threads = (await (await fetch(`${third.url}/api/threads`)).json()) as { threads: { threadId: string }[] };
    expect(threads.threads.map((t) => t.threadId)).toContain(threadId);
    // And a process on Postgres stops cleanly.
    third.child.kill('SIGTERM');
    expect((await third.exit).code).toBe(0);
  });
});
