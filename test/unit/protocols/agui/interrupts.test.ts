/** Interrupts from broker requests and resume entries back to decisions, against the real ApprovalBroker. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../../../src/hitl/approvals.ts';
import { interruptsFor, planResume, runNamedBy } from '../../../../src/protocols/agui/interrupts.ts';

let broker: ApprovalBroker;
beforeEach(() => {
  broker = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny' });
});
afterEach(async () => {
  await broker.close();
});

const schema = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
  additionalProperties: false,
};

function askTwoCalls(runId = 'run-1') {
  return broker.request({
    kind: 'tool',
    runId,
    stepId: 's1',
    toolCalls: [
      { toolCallId: 'c1', tool: 'fs/write', args: { path: 'a' }, reason: 'destructiveHint', inputSchema: schema },
      { toolCallId: 'c2', tool: 'fs/delete', args: { path: 'b' }, reason: 'destructiveHint' },
    ],
  });
}

describe('interruptsFor', () => {
  it('gives one interrupt per tool call and one per elicitation', () => {
    const { request } = askTwoCalls();
    const elicit = broker.request({
      kind: 'elicitation',
      runId: 'run-1',
      source: 'fx',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    const interrupts = interruptsFor([request, elicit.request]);
    expect(interrupts.map((i) => i.id)).toEqual([`${request.id}::c1`, `${request.id}::c2`, elicit.request.id]);
    expect(interrupts[0]).toMatchObject({
      reason: 'tool_approval',
      toolCallId: 'c1',
      expiresAt: request.expiresAt,
      metadata: { requestId: request.id, tool: 'fs/write' },
    });
    expect((interrupts[0]!.responseSchema as { properties: { args: unknown } }).properties.args).toEqual(schema);
    expect(interrupts[2]).toMatchObject({
      reason: 'elicitation',
      message: 'Your name?',
      responseSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
  });
});

describe('planResume', () => {
  it('folds the answers to one request into one checked decision that the broker accepts', async () => {
    const { request, outcome } = askTwoCalls();
    const plan = planResume(
      [
        {
          interruptId: `${request.id}::c1`,
          status: 'resolved',
          payload: { decision: 'edit', args: { path: 'z' }, feedback: 'use z' },
        },
        { interruptId: `${request.id}::c2`, status: 'cancelled' },
      ],
      broker,
      'run-1',
    );
    if (!plan.ok) throw new Error(plan.message);
    expect(runNamedBy([{ interruptId: `${request.id}::c1`, status: 'resolved' }], broker)).toBe('run-1');
    expect(plan.resolutions).toEqual([
      {
        requestId: request.id,
        decision: {
          kind: 'tool',
          decisions: { c1: { type: 'edit', args: { path: 'z' } }, c2: { type: 'deny' } },
          feedback: 'use z',
        },
      },
    ]);
    expect((await broker.resolve(request.id, plan.resolutions[0]!.decision, 'test')).ok).toBe(true);
    expect((await outcome).decision).toMatchObject({ decisions: { c1: { type: 'edit' }, c2: { type: 'deny' } } });
  });

  it('accepts the short forms "accept" and "deny"', () => {
    const { request } = askTwoCalls();
    const plan = planResume(
      [
        { interruptId: `${request.id}::c1`, status: 'resolved', payload: 'accept' },
        { interruptId: `${request.id}::c2`, status: 'resolved', payload: 'deny' },
      ],
      broker,
      'run-1',
    );
    expect(plan.ok && plan.resolutions[0]!.decision).toEqual({
      kind: 'tool',
      decisions: { c1: { type: 'accept' }, c2: { type: 'deny' } },
    });
  });

  it.each([
    [[{ status: 'resolved', payload: { decision: 'maybe' } }], 'resume.0.payload'],
    [[{ status: 'resolved', payload: { decision: 'edit' } }], 'resume.0.payload.args'],
    [[{ status: 'resolved', payload: 'accept' }], 'resume'],
    [
      [
        { status: 'resolved', payload: { decision: 'edit', args: { nope: 1 } } },
        { status: 'cancelled', call: 'c2' },
      ],
      'resume',
    ],
  ])('rejects %j naming %s, and resolves nothing', (entries, field) => {
    const { request } = askTwoCalls();
    const resume = entries.map((e) => ({
      interruptId: `${request.id}::${'call' in e ? e.call : 'c1'}`,
      status: e.status as 'resolved' | 'cancelled',
      payload: 'payload' in e ? e.payload : undefined,
    }));
    const plan = planResume(resume, broker, 'run-1');
    expect(plan.ok).toBe(false);
    if (!plan.ok) {
      expect(plan.field).toBe(field);
      expect(plan.message.startsWith(field)).toBe(true);
    }
    expect(broker.listPending('run-1')).toHaveLength(1);
  });

  it('rejects an interrupt id naming no tool call of the request', () => {
    const { request } = askTwoCalls();
    const plan = planResume(
      [{ interruptId: `${request.id}::c9`, status: 'resolved', payload: 'accept' }],
      broker,
      'run-1',
    );
    expect(plan).toMatchObject({ ok: false, field: 'resume.0.interruptId' });
  });

  it('answers elicitations with the content, or cancel', () => {
    const a = broker.request({
      kind: 'elicitation',
      runId: 'run-1',
      source: 'fx',
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const b = broker.request({ kind: 'elicitation', runId: 'run-1', source: 'fx', message: 'Colour?' });
    const plan = planResume(
      [
        { interruptId: a.request.id, status: 'resolved', payload: { name: 'Ada' } },
        { interruptId: b.request.id, status: 'cancelled' },
      ],
      broker,
      'run-1',
    );
    expect(plan.ok && plan.resolutions).toEqual([
      { requestId: a.request.id, decision: { kind: 'elicitation', action: 'accept', content: { name: 'Ada' } } },
      { requestId: b.request.id, decision: { kind: 'elicitation', action: 'cancel' } },
    ]);
    expect(
      planResume([{ interruptId: a.request.id, status: 'resolved', payload: 'Ada' }], broker, 'run-1'),
    ).toMatchObject({ ok: false, field: 'resume.0.payload' });
    expect(
      planResume([{ interruptId: a.request.id, status: 'resolved', payload: { name: 7 } }], broker, 'run-1'),
    ).toMatchObject({ ok: false, field: 'resume' });
  });

  it('skips requests no longer pending and refuses an interrupt of another run', () => {
    const { request } = askTwoCalls('run-1');
    const other = askTwoCalls('run-2');
    expect(planResume([{ interruptId: 'gone::c1', status: 'resolved', payload: 'accept' }], broker, 'run-1')).toEqual({
      ok: true,
      resolutions: [],
    });
    expect(runNamedBy([{ interruptId: 'gone::c1', status: 'resolved' }], broker)).toBeUndefined();
    expect(
      planResume(
        [
          { interruptId: `${request.id}::c1`, status: 'resolved', payload: 'accept' },
          { interruptId: `${other.request.id}::c1`, status: 'resolved', payload: 'accept' },
        ],
        broker,
        'run-1',
      ),
    ).toMatchObject({ ok: false, foreign: true, field: 'resume.1.interruptId' });
    // Nothing of either run was resolved.
    expect(broker.listPending('run-1')).toHaveLength(1);
    expect(broker.listPending('run-2')).toHaveLength(1);
  });
});
