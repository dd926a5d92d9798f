/** The SSE stream against the real engine over real HTTP, read with fetch and eventsource-parser. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEvent } from '../../../../src/graph/run/events.ts';
import { NOTE_QUERY, startRig, until, type Rig } from '../../../support/protocols/agui-rig.ts';
import { postJson, readAll, readSse, type SseMessage } from '../../../support/protocols/sse-read.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ heartbeatMs: 40 });
});
afterAll(async () => {
  await rig?.close();
});

const approve = (requestId: string, toolCallId: string) =>
  postJson(`${rig.url}/api/approve`, { request_id: requestId, decisions: { [toolCallId]: 'accept' } });

/** Reads a stream until an approval is requested, then resolves it through /api/approve. */
async function approveFirstRequest(events: GraphEvent[]): Promise<void> {
  const asked = events.find((e) => e.type === 'approval.requested');
  if (asked?.type !== 'approval.requested' || asked.request.kind !== 'tool') throw new Error('no approval request');
  expect((await approve(asked.request.id, asked.request.toolCalls[0]!.toolCallId)).status).toBe(200);
}

describe('POST /stream', () => {
  it('streams every GraphEvent as event: <type>, id: <seq>, data: <json>, ending with run.finished', async () => {
    const res = await postJson(`${rig.url}/stream`, {
      query: 'Analyse the sales data trends and write a report about them',
      mode: 'orchestrate',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const runId = res.headers.get('x-parley-run-id')!;
    const messages = await readAll(res);
    expect(messages.map((m) => m.id)).toEqual(messages.map((_, i) => String(i + 1)));
    for (const m of messages) {
      expect(m.event).toBe(m.json.type);
      expect(m.json).toMatchObject({ runId, seq: Number(m.id) });
    }
    expect(messages[0]!.json).toMatchObject({ type: 'run.started', mode: 'orchestrate', protocol: 'sse' });
    const last = messages.at(-1)!.json;
    expect(last).toMatchObject({ type: 'run.finished', status: 'completed' });
    // Exactly what the engine retained.
    const replay: GraphEvent[] = [];
    for await (const e of rig.parley.engine.get(runId)!.events()) replay.push(e);
    expect(messages.map((m) => m.json)).toEqual(replay);
  });

  it('rejects a bad body with 400 naming the field, and starts no run', async () => {
    const before = rig.parley.engine.retainedRuns;
    const cases: [unknown, string][] = [
      [{ query: '' }, 'query'],
      [{ query: 'hi', mode: 'fast' }, 'mode'],
      [{ query: 'hi', budget: { tokens: -5 } }, 'budget.tokens'],
      [{ query: 'hi', models: { chef: 'x' } }, 'models'],
      [{ query: 'hi', colour: 'blue' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await postJson(`${rig.url}/stream`, body);
      expect(res.status).toBe(400);
      const err = ((await res.json()) as { error: { code: string; field: string; message: string } }).error;
      expect(err.code).toBe('invalid_request');
      expect(err.field.startsWith(field)).toBe(true);
      expect(err.message).toContain(err.field);
    }
    const broken = await postJson(`${rig.url}/stream`, '{"query":');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    expect(rig.parley.engine.retainedRuns).toBe(before);
  });

  it('sends heartbeat comments while idle, and a disconnect leaves the run running', async () => {
    const abort = new AbortController();
    const res = await postJson(
      `${rig.url}/stream`,
      { query: NOTE_QUERY.replace('agui.txt', 'beat.txt') },
      {},
      abort.signal,
    );
    const runId = res.headers.get('x-parley-run-id')!;
    let comments = 0;
    let atApproval: number | undefined;
    const seen: GraphEvent[] = [];
    const reading = (async () => {
      for await (const m of readSse(res, () => comments++)) {
        seen.push(m.json);
        if (m.json.type === 'approval.requested') atApproval = comments;
      }
    })().catch(() => undefined);
    // The run now waits for a human: the stream is idle, so heartbeats flow.
    const base = await until(() => atApproval !== undefined && { n: atApproval });
    await until(() => comments >= base.n + 2, 5000);
    abort.abort();
    await reading;
    await new Promise((r) => setTimeout(r, 50));
    expect(rig.parley.approvals.listPending(runId)).toHaveLength(1);
    await approveFirstRequest(seen);
    expect((await rig.parley.engine.get(runId)!.result).status).toBe('completed');
  });
});

describe('reconnect and replay', () => {
  it('GET /stream/:runId with Last-Event-ID resumes right after the last event seen', async () => {
    const res = await postJson(`${rig.url}/stream`, { query: NOTE_QUERY.replace('agui.txt', 'reconnect.txt') });
    const runId = res.headers.get('x-parley-run-id')!;
    const first: SseMessage[] = [];
    for await (const m of readSse(res)) {
      first.push(m);
      if (m.json.type === 'approval.requested') break; // the client drops here
    }
    await approveFirstRequest(first.map((m) => m.json));
    const lastId = first.at(-1)!.id!;
    const again = await fetch(`${rig.url}/stream/${runId}`, { headers: { 'Last-Event-ID': lastId } });
    expect(again.status).toBe(200);
    const rest = await readAll(again);
    expect(rest[0]!.id).toBe(String(Number(lastId) + 1));
    const seqs = [...first, ...rest].map((m) => Number(m.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(rest.at(-1)!.json).toMatchObject({ type: 'run.finished', status: 'completed' });

    // ?after= does the same for clients that cannot set headers.
    const after = await readAll(await fetch(`${rig.url}/stream/${runId}?after=${seqs.length - 2}`));
    expect(after.map((m) => Number(m.id))).toEqual([seqs.length - 1, seqs.length]);
  });

  it('GET /api/runs/:id/events replays a finished run as SSE or as a JSON array, and a running one so far', async () => {
    const res = await postJson(`${rig.url}/stream`, { query: 'hello [[route:direct]]' });
    const runId = res.headers.get('x-parley-run-id')!;
    const live = (await readAll(res)).map((m) => m.json);

    const sse = await readAll(await fetch(`${rig.url}/api/runs/${runId}/events`));
    expect(sse.map((m) => m.json)).toEqual(live);
    const json = await fetch(`${rig.url}/api/runs/${runId}/events`, { headers: { accept: 'application/json' } });
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(await json.json()).toEqual(live);

    // A run still waiting for approval: the JSON replay is the history so far, without waiting.
    const waiting = await postJson(`${rig.url}/stream`, { query: NOTE_QUERY.replace('agui.txt', 'replay.txt') });
    const waitingId = waiting.headers.get('x-parley-run-id')!;
    const seen: GraphEvent[] = [];
    for await (const m of readSse(waiting)) {
      seen.push(m.json);
      if (m.json.type === 'approval.requested') break;
    }
    const sofar = (await (
      await fetch(`${rig.url}/api/runs/${waitingId}/events`, { headers: { accept: 'application/json' } })
    ).json()) as GraphEvent[];
    expect(sofar.slice(0, seen.length)).toEqual(seen);
    expect(sofar.some((e) => e.type === 'run.finished')).toBe(false);
    await approveFirstRequest(seen);
    expect((await rig.parley.engine.get(waitingId)!.result).status).toBe('completed');
  });

  it('answers an unknown run with 404 and a malformed Last-Event-ID with 400', async () => {
    expect((await fetch(`${rig.url}/stream/no-such-run`)).status).toBe(404);
    expect((await fetch(`${rig.url}/api/runs/no-such-run/events`)).status).toBe(404);
    const res = await postJson(`${rig.url}/stream`, { query: 'hi [[route:direct]]' });
    const runId = res.headers.get('x-parley-run-id')!;
    await readAll(res);
    const bad = await fetch(`${rig.url}/stream/${runId}`, { headers: { 'Last-Event-ID': 'yesterday' } });
    expect(bad.status).toBe(400);
  });

  it('POST /stream/:runId/cancel cancels a running run and answers how it ended; again: 409, already ended', async () => {
    const res = await postJson(`${rig.url}/stream`, { query: NOTE_QUERY.replace('agui.txt', 'cancel.txt') });
    const runId = res.headers.get('x-parley-run-id')!;
    const cancelled = await postJson(`${rig.url}/stream/${runId}/cancel`, {});
    // The answer comes once the run has ended, and says so.
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toEqual({ runId, cancelled: true, status: 'cancelled' });
    const events = (await readAll(res)).map((m) => m.json);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
    const again = await postJson(`${rig.url}/stream/${runId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ runId, cancelled: false, status: 'cancelled' });
  });
});
