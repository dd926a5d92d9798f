/**
 * An AG-UI resume answers only its own thread's suspended run, of its own caller (issue #12 §3),
 * driven by @ag-ui/client's HttpAgent over real HTTP with API keys on.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventType, HttpAgent, type BaseEvent, type Interrupt } from '@ag-ui/client';
import { NOTE_QUERY, startRig, type Rig } from '../../../support/protocols/agui-rig.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ apiKeys: ['key-one', 'key-two'] });
});
afterAll(async () => {
  await rig?.close();
});

function agent(key: string, threadId?: string, text?: string): HttpAgent {
  const a = new HttpAgent({
    url: `${rig.url}/ag-ui`,
    headers: { authorization: `Bearer ${key}` },
    ...(threadId ? { threadId } : {}),
  });
  if (text) a.addMessage({ id: randomUUID(), role: 'user', content: text });
  return a;
}

/** Runs the agent and collects its events; a RUN_ERROR makes runAgent reject, which is kept. */
async function collect(
  a: HttpAgent,
  params: Parameters<HttpAgent['runAgent']>[0],
): Promise<{ events: BaseEvent[]; error?: unknown }> {
  const events: BaseEvent[] = [];
  try {
    await a.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/** Starts a run that stops for approval with the interrupt outcome; returns its agent, run id and interrupt. */
async function interrupted(key: string, file: string): Promise<{ a: HttpAgent; runId: string; interrupt: Interrupt }> {
  const a = agent(key, undefined, NOTE_QUERY.replace('agui.txt', file));
  const runId = randomUUID();
  await a.runAgent({ runId, forwardedProps: { parley: { interrupts: true } } });
  expect(a.pendingInterrupts).toHaveLength(1);
  return { a, runId, interrupt: a.pendingInterrupts[0]! };
}

const accept = (i: Interrupt) => ({ interruptId: i.id, status: 'resolved' as const, payload: { decision: 'accept' } });
const wrote = (file: string) => rig.fixture.state.writes.some((w) => w.path === file);

describe('AG-UI resume is scoped to its thread and caller', () => {
  it("a resume naming another thread's interrupt gets RUN_ERROR, resolves nothing, and the real resume still works", async () => {
    const A = await interrupted('key-one', 'scope-a.txt');
    const B = await interrupted('key-one', 'scope-b.txt');

    // Thread A's client answers its own interrupt and, smuggled in, B's.
    const mixed = await collect(A.a, { runId: randomUUID(), resume: [accept(A.interrupt), accept(B.interrupt)] });
    expect(mixed.events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
    expect(mixed.events[1]).toMatchObject({ code: 'invalid_resume' });
    expect((mixed.events[1] as BaseEvent & { message: string }).message).toMatch(
      /not an interrupt of this thread's suspended run/,
    );

    // A bare client on thread A naming only B's interrupt: the same answer.
    const bare = await collect(agent('key-one', A.a.threadId), { runId: randomUUID(), resume: [accept(B.interrupt)] });
    expect(bare.events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);

    // Nothing changed: both runs still wait on their own approval, no tool ran.
    expect(rig.parley.approvals.listPending(A.runId)).toHaveLength(1);
    expect(rig.parley.approvals.listPending(B.runId)).toHaveLength(1);
    expect(wrote('scope-a.txt') || wrote('scope-b.txt')).toBe(false);

    // Each thread's own resume still continues its own run to the end.
    const resumedA = await collect(A.a, { runId: randomUUID(), resume: [accept(A.interrupt)] });
    expect(resumedA.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    const resumedB = await collect(B.a, { runId: randomUUID(), resume: [accept(B.interrupt)] });
    expect(resumedB.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(wrote('scope-a.txt') && wrote('scope-b.txt')).toBe(true);
  });

  it("another caller cannot resume a thread's run, even with its interrupt id: 409 as if there were none", async () => {
    const A = await interrupted('key-one', 'scope-caller.txt');
    const other = await collect(agent('key-two', A.a.threadId), { runId: randomUUID(), resume: [accept(A.interrupt)] });
    expect(other.error).toMatchObject({ status: 409 });
    expect(other.events).toEqual([]);
    expect(rig.parley.approvals.listPending(A.runId)).toHaveLength(1);
    expect(wrote('scope-caller.txt')).toBe(false);
    rig.parley.engine.cancel(A.runId);
  });

  it('a resume that leaves the run still waiting ends at once with the interrupt again, never hangs', async () => {
    const A = await interrupted('key-one', 'scope-wait.txt');
    const again = await collect(agent('key-one', A.a.threadId), {
      runId: randomUUID(),
      resume: [{ interruptId: 'gone::c1', status: 'resolved', payload: 'accept' }],
    });
    const end = again.events.at(-1) as BaseEvent & { outcome: { type: string; interrupts: { id: string }[] } };
    expect(end).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
    expect(end.outcome.interrupts.map((i) => i.id)).toEqual([A.interrupt.id]);
    const resumed = await collect(A.a, { runId: randomUUID(), resume: [accept(A.interrupt)] });
    expect(resumed.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
  });

  it("a runId another caller already uses starts this caller's own run; the owner re-sending it gets 409", async () => {
    const runId = randomUUID();
    const first = await collect(agent('key-one', undefined, 'What is a river?'), { runId });
    expect(first.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    // Key two picks the same id: its own run, under its own engine id, with nothing of key one's.
    const second = await collect(agent('key-two', undefined, 'What is a lake?'), { runId });
    expect(second.error).toBeUndefined();
    expect(second.events[0]).toMatchObject({ type: EventType.RUN_STARTED, runId });
    const engineRunId = (second.events[0] as BaseEvent & { metadata: { parleyRunId: string } }).metadata.parleyRunId;
    expect(engineRunId).not.toBe(runId);
    expect(second.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(JSON.stringify(second.events)).not.toContain('river');
    // Key one sending its own id again: the id is in use.
    const again = await collect(agent('key-one', undefined, 'What is a sea?'), { runId });
    expect(again.error).toMatchObject({ status: 409 });
  });
});
