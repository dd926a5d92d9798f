/**
 * A fork never repeats a tool call without a new decision (docs/time-travel.md): the shipped server
 * with the real filesystem server, whose write_file needs approval, over POST /stream and /api/approve.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { postJson, readSse } from '../../support/protocols/sse-read.ts';
import { ofType } from '../../support/run-events.ts';
import { startShippedParley, writeFileQuery, type ShippedParley } from '../../support/server.ts';
import { bearer, listCheckpoints } from '../../support/time-travel.ts';

const KEY = 'tt-approval-key';
let server: ShippedParley;
let url: string;
let dataDir: string;

beforeAll(async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: KEY });
  ({ url, dataDir } = server);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** Reads a stream up to its first approval request; the rest of the stream stays readable. */
async function untilApproval(stream: AsyncGenerator<{ json: GraphEvent }>) {
  const seen: GraphEvent[] = [];
  for (let m = await stream.next(); !m.done; m = await stream.next()) {
    seen.push(m.value.json);
    if (m.value.json.type === 'approval.requested') return m.value.json as GraphEventOf<'approval.requested'>;
  }
  throw new Error(`no approval was asked: ${seen.map((e) => e.type).join(', ')}`);
}

async function accept(request: GraphEventOf<'approval.requested'>) {
  const call = request.request.kind === 'tool' ? request.request.toolCalls[0]! : undefined;
  const res = await postJson(
    `${url}/api/approve`,
    { request_id: request.request.id, decisions: { [call!.toolCallId]: 'accept' } },
    bearer(KEY),
  );
  expect(res.status).toBe(200);
}

async function rest(stream: AsyncGenerator<{ json: GraphEvent }>): Promise<GraphEvent[]> {
  const out: GraphEvent[] = [];
  for await (const m of stream) out.push(m.json);
  return out;
}

async function startFork(runId: string, checkpoint: string) {
  const res = await postJson(`${url}/api/runs/${runId}/fork`, { checkpoint }, bearer(KEY));
  expect(res.status).toBe(201);
  const { runId: forkId } = (await res.json()) as { runId: string };
  const events = await fetch(`${url}/api/runs/${forkId}/events`, { headers: bearer(KEY) });
  return { forkId, stream: readSse(events) };
}

describe('a fork of a run that waited on a human', () => {
  it('of a run still waiting asks again, and the file is written once, after the new decision', async () => {
    const file = join(dataDir, 'workspace', 'fork-waiting.txt');
    rmSync(file, { force: true });
    const res = await postJson(
      `${url}/stream`,
      { query: writeFileQuery(dataDir, 'fork-waiting.txt', 'written by the fork'), mode: 'orchestrate' },
      bearer(KEY),
    );
    const parent = readSse(res);
    const asked = await untilApproval(parent);
    const parentId = asked.runId;

    const planned = (await listCheckpoints(url, KEY, parentId)).find((c) => c.kind === 'planned')!;
    const { forkId, stream } = await startFork(parentId, planned.id);
    const again = await untilApproval(stream);
    expect(again.runId).toBe(forkId);
    expect(again.request.id).not.toBe(asked.request.id);
    expect(existsSync(file)).toBe(false);

    await accept(again);
    const events = await rest(stream);
    expect(ofType(events, 'tool.finished').map((e) => e.status)).toEqual(['ok']);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(readFileSync(file, 'utf8')).toBe('written by the fork');

    // The parent still waits on its own decision: cancel it; the file was written once.
    expect((await postJson(`${url}/stream/${parentId}/cancel`, {}, bearer(KEY))).status).toBe(202);
    const parentRest = await rest(parent);
    expect(ofType(parentRest, 'tool.finished').filter((e) => e.status === 'ok')).toHaveLength(0);
    expect(parentRest.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
  });

  it('of a finished run: before the step, asks again; after it, carries the step and calls no tool', async () => {
    const file = join(dataDir, 'workspace', 'fork-finished.txt');
    rmSync(file, { force: true });
    const res = await postJson(
      `${url}/stream`,
      { query: writeFileQuery(dataDir, 'fork-finished.txt', 'first write'), mode: 'orchestrate' },
      bearer(KEY),
    );
    const parent = readSse(res);
    await accept(await untilApproval(parent));
    const parentEvents = await rest(parent);
    const parentId = parentEvents[0]!.runId;
    expect(readFileSync(file, 'utf8')).toBe('first write');
    rmSync(file);

    const checkpoints = await listCheckpoints(url, KEY, parentId);
    const afterStep = checkpoints.find((c) => c.kind === 'step')!;
    const carried = await startFork(parentId, afterStep.id);
    const carriedEvents = await rest(carried.stream);
    expect(carriedEvents.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(ofType(carriedEvents, 'tool.started')).toHaveLength(0);
    expect(ofType(carriedEvents, 'approval.requested')).toHaveLength(0);
    expect(existsSync(file)).toBe(false);

    const planned = checkpoints.find((c) => c.kind === 'planned')!;
    const before = await startFork(parentId, planned.id);
    const asked = await untilApproval(before.stream);
    expect(existsSync(file)).toBe(false);
    await accept(asked);
    await rest(before.stream);
    expect(readFileSync(file, 'utf8')).toBe('first write');
  });
});
