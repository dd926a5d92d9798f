/**
 * Durable runs across a restart of a real `parley serve` process (docs/durability.md): a run waiting on
 * a human survives kill -9 and SIGTERM under the same approval id and finishes when the human answers
 * through POST /api/approve after the restart, with the tool's effect on disk; its event log replays
 * across the restart (GET /api/runs/:id/events, SSE Last-Event-ID); a run in progress at kill -9 resumes
 * from its checkpointed plan, or ends failed saying a restart interrupted it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { postJson, readSse } from '../../support/protocols/sse-read.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

/** Each test starts two or three servers (each ingests the roster and starts the shipped MCP servers). */
vi.setConfig({ testTimeout: 120_000 });

const { serve, tempDataDir, servers } = useServeProcesses('parley-restart');

/** Starts a run over POST /stream and reads its events until `until` matches one (that one included). */
async function streamUntil(url: string, query: string, until: (e: GraphEvent) => boolean) {
  const res = await postJson(`${url}/stream`, { query, mode: 'orchestrate' });
  expect(res.status).toBe(200);
  const stream = readSse(res);
  const seen: GraphEvent[] = [];
  for (let m = await stream.next(); !m.done; m = await stream.next()) {
    seen.push(m.value.json);
    if (until(m.value.json)) return { runId: res.headers.get('x-parley-run-id')!, seen, stream };
  }
  throw new Error(`the run ended first: ${seen.map((e) => e.type).join(', ')}`);
}

/** Reconnects to a run's stream after `lastSeq` (Last-Event-ID) and reads it to the end. */
async function reconnect(url: string, runId: string, lastSeq: number): Promise<GraphEvent[]> {
  const res = await fetch(`${url}/stream/${runId}`, { headers: { 'last-event-id': String(lastSeq) } });
  if (res.status !== 200) console.log(servers.map((s) => s.log()).join('\n-----\n'));
  expect(res.status).toBe(200);
  const events: GraphEvent[] = [];
  for await (const m of readSse(res)) events.push(m.json);
  return events;
}

async function pendingIds(url: string): Promise<string[]> {
  const listed = (await (await fetch(`${url}/api/approvals`)).json()) as { approvals: { id: string }[] };
  return listed.approvals.map((a) => a.id);
}

const isApproval = (e: GraphEvent): e is GraphEventOf<'approval.requested'> => e.type === 'approval.requested';

/** Reaches the filesystem write's approval, stops the server with `signal`, starts it again, approves, and checks the ending. */
async function approvalSurvives(signal: 'SIGKILL' | 'SIGTERM') {
  const dataDir = tempDataDir();
  const file = `${signal}.txt`;
  const first = await serve(dataDir);
  const { runId, seen, stream } = await streamUntil(
    first.url,
    writeFileQuery(dataDir, file, `written after ${signal}`),
    isApproval,
  );
  const asked = seen.at(-1) as GraphEventOf<'approval.requested'>;
  const call = asked.request.kind === 'tool' ? asked.request.toolCalls[0]! : undefined;
  expect(call?.tool).toBe('filesystem/write_file');
  expect(await pendingIds(first.url)).toEqual([asked.request.id]);

  first.child.kill(signal);
  const stopped = await first.exit;
  if (signal === 'SIGTERM') {
    expect(stopped.code).toBe(0);
    // The open stream of the waiting run ended at once; it did not hold the shutdown for the grace period.
    expect(first.log()).not.toContain('requests still open after the grace period');
  } else expect(stopped.signal).toBe('SIGKILL');
  await stream.return(undefined);
  expect(existsSync(join(dataDir, 'workspace', file))).toBe(false);

  const second = await serve(dataDir);
  // The same request, under the same id, waits again.
  expect(await pendingIds(second.url)).toEqual([asked.request.id]);
  const approved = await postJson(`${second.url}/api/approve`, {
    request_id: asked.request.id,
    decisions: { [call!.toolCallId]: 'accept' },
  });
  expect(approved.status).toBe(200);

  // Reconnecting with the last seq the client saw: nothing repeated, nothing missing, then the end.
  const rest = await reconnect(second.url, runId, asked.seq);
  expect(rest[0]?.seq).toBe(asked.seq + 1);
  expect(rest.map((e) => e.seq)).toEqual(rest.map((_, i) => asked.seq + 1 + i));
  expect(rest.find((e) => e.type === 'approval.resolved')).toMatchObject({
    outcome: { requestId: asked.request.id, resolvedBy: 'human' },
  });
  const finished = rest.filter((e): e is GraphEventOf<'tool.finished'> => e.type === 'tool.finished');
  expect(finished.find((e) => e.status === 'ok')).toMatchObject({ tool: 'filesystem/write_file', status: 'ok' });
  // Every tool.started of the whole log has its one tool.finished: the call cut by the stop is closed
  // as interrupted (the step calls anew after the restart), never left open beside its second start.
  const count = (type: 'tool.started' | 'tool.finished') =>
    [...seen, ...rest]
      .filter((e) => e.type === type)
      .map((e) => (e as GraphEventOf<'tool.started'>).toolCallId)
      .sort();
  expect(count('tool.started').length).toBeGreaterThan(0);
  expect(count('tool.finished')).toEqual(count('tool.started'));
  const cut = seen.filter((e) => e.type === 'tool.started').map((e) => (e as GraphEventOf<'tool.started'>).toolCallId);
  for (const id of cut)
    expect(finished.find((e) => e.toolCallId === id)).toMatchObject({
      status: 'error',
      error: 'interrupted by a restart of Parley',
    });
  expect(rest.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  expect(readFileSync(join(dataDir, 'workspace', file), 'utf8')).toBe(`written after ${signal}`);
  expect(await pendingIds(second.url)).toEqual([]);
  return { dataDir, runId, second, total: rest.at(-1)!.seq };
}

describe('a run waiting on a human survives a restart', () => {
  it('kill -9: the approval waits again under the same id, POST /api/approve finishes the run and the file is written', async () => {
    await approvalSurvives('SIGKILL');
  });

  it('SIGTERM: the waiting run is not cancelled but left for the next start, then finishes the same way', async () => {
    await approvalSurvives('SIGTERM');
  });
});

describe('event logs outlive the process', () => {
  it('a finished run replays in full after another restart: GET /api/runs/:id/events, Last-Event-ID, /api/runs', async () => {
    const { dataDir, runId, second, total } = await approvalSurvives('SIGKILL');
    second.child.kill('SIGKILL');
    await second.exit;
    const third = await serve(dataDir);
    const res = await fetch(`${third.url}/api/runs/${runId}/events`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    const events = (await res.json()) as GraphEvent[];
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'run.started', runId });
    expect(events.filter((e) => e.type === 'run.started')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const tail = await reconnect(third.url, runId, total - 2);
    expect(tail.map((e) => e.seq)).toEqual([total - 1, total]);
    const runs = (await (await fetch(`${third.url}/api/runs`)).json()) as { runs: { id: string; status: string }[] };
    expect(runs.runs.find((r) => r.id === runId)?.status).toBe('completed');
  });
});

describe('a run in progress at kill -9', () => {
  it('resumes from its checkpointed plan: the step in flight runs again and the run completes', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    const query = 'Survey three caching strategies [[steps:1]] [[latency:1500]]';
    const { runId, stream } = await streamUntil(first.url, query, (e) => e.type === 'step.started');
    first.child.kill('SIGKILL');
    await first.exit;
    await stream.return(undefined);

    const second = await serve(dataDir);
    const events = await reconnect(second.url, runId, 0);
    expect(events.filter((e) => e.type === 'run.started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'plan.ready').length).toBeGreaterThanOrEqual(2);
    expect(events.find((e) => e.type === 'route.decided' && e.stage === 'preset_plan')).toMatchObject({
      reason: expect.stringMatching(/resuming the checkpointed plan after a restart/),
    });
    expect(
      events.filter((e) => e.type === 'step.started').map((e) => (e as GraphEventOf<'step.started'>).stepId),
    ).toEqual(['s1', 's1']);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  });

  it('ends failed, saying a restart interrupted it, when it had no plan to resume from', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    const { runId, stream } = await streamUntil(
      first.url,
      'Plan a migration [[latency:3000]]',
      (e) => e.type === 'node.started' && e.node === 'router',
    );
    first.child.kill('SIGKILL');
    await first.exit;
    await stream.return(undefined);

    const second = await serve(dataDir);
    const events = await reconnect(second.url, runId, 0);
    expect(events[0]).toMatchObject({ type: 'run.started', runId });
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      status: 'failed',
      error: expect.stringMatching(/interrupted by a restart/),
    });
  });
});
