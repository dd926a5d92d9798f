/**
 * Dynamic teams through the real engine: the scripted model over HTTP plays the manager and the
 * workers (docs/scripted-model.md), Kuzu holds the registry, and every agent is a step of the one
 * scheduler. Each case reads what a client would: the run's events and its result.
 */
import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { useNotesParley } from '../../support/use-notes-parley.ts';
import { ofType } from '../../support/run-events.ts';
import type { GraphEvent } from '../../../src/graph/events.ts';

const spawned = (events: GraphEvent[]) => ofType(events, 'step.spawned');
const finishedSteps = (events: GraphEvent[]) => ofType(events, 'step.finished');

describe('dynamic mode', () => {
  const p = useTestParley();

  it('a manager spawns one worker per matching specialist; they run as steps, write the team memory, and the manager reads it', async () => {
    const { result, events } = await p.run({
      query: 'Research the security and database design of a payments API',
      mode: 'dynamic',
    });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'dynamic' });
    expect(ofType(events, 'plan.ready')[0]!.plan.steps).toMatchObject([
      { id: 'manager', specialist: 'manager', manager: true },
    ]);
    const children = spawned(events);
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(children.map((c) => c.specialist)).toEqual(expect.arrayContaining(['security', 'database']));
    for (const [i, child] of children.entries())
      expect(child).toMatchObject({ stepId: `manager-${i + 1}`, parentStepId: 'manager', role: 'worker' });
    // Every spawned step is started and finished by the scheduler like a planned one.
    const done = new Map(finishedSteps(events).map((e) => [e.stepId, e]));
    for (const child of children) expect(done.get(child.stepId)?.status).toBe('succeeded');
    // The manager ends after its workers, with what they appended to the team memory (read after write).
    const manager = done.get('manager')!;
    expect(manager.status).toBe('succeeded');
    expect(manager.seq).toBeGreaterThan(Math.max(...children.map((c) => done.get(c.stepId)!.seq)));
    const writes = ofType(events, 'context.written');
    expect(writes.filter((w) => w.key === 'findings').map((w) => w.stepId)).toEqual(
      expect.arrayContaining(children.map((c) => c.stepId)),
    );
    for (const child of children) expect(manager.output).toContain(`${child.stepId}: Research the security`);
    expect(writes.at(-1)).toMatchObject({ stepId: 'manager', key: 'summary' });
    // The verifier and the synthesizer see the emergent graph: the manager and every worker.
    expect(result.answer).toContain(`synthesized from ${children.length + 1} step results`);
  });

  it('nests managers down to [[depth:D]]: managers spawn managers that spawn workers', async () => {
    const { result, events } = await p.run({
      query: 'Research security and database design [[spawn:2]] [[depth:2]]',
      mode: 'dynamic',
    });
    expect(result.status).toBe('completed');
    const tree = spawned(events).map((e) => `${e.parentStepId}>${e.stepId}:${e.role}`);
    expect(tree).toEqual(
      expect.arrayContaining([
        'manager>manager-1:manager',
        'manager>manager-2:manager',
        'manager-1>manager-1-1:worker',
        'manager-1>manager-1-2:worker',
        'manager-2>manager-2-1:worker',
        'manager-2>manager-2-2:worker',
      ]),
    );
    expect(tree).toHaveLength(6);
    expect(finishedSteps(events).every((e) => e.status === 'succeeded')).toBe(true);
  });

  it('siblings message each other: each message reaches the next turn of its receiver', async () => {
    const { result, events } = await p.run({
      query: 'Research security and database design [[spawn:3]] [[message:my part is done]]',
      mode: 'dynamic',
    });
    expect(result.status).toBe('completed');
    const sent = ofType(events, 'message.sent').map((m) => `${m.from}>${m.to}:${m.preview}`);
    expect(sent.sort()).toEqual([
      'manager-1>manager-2:my part is done',
      'manager-2>manager-3:my part is done',
      'manager-3>manager-1:my part is done',
    ]);
    const outputs = new Map(finishedSteps(events).map((e) => [e.stepId, e.output ?? '']));
    expect(outputs.get('manager-2')).toContain('Heard: [Message from manager-1] my part is done');
    expect(outputs.get('manager-1')).toContain('Heard: [Message from manager-3] my part is done');
  });

  it('a deadlock ends the run failed, naming the cycle of waits', async () => {
    const { result, events } = await p.run({ query: 'Research security [[deadlock]]', mode: 'dynamic' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^deadlock: /);
    expect(result.error).toContain('manager waits for the agents it spawned (manager-1)');
    expect(result.error).toContain('manager-1 waits for a message from manager');
    expect(result.error).toContain('manager → manager-1 → manager');
    expect(finishedSteps(events).map((e) => e.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('cancelling mid-spawn reaches every agent: the run ends cancelled and no model call follows', async () => {
    const handle = p.engine.start({
      query: 'Research security and database design [[spawn:4]] [[latency:150]]',
      mode: 'dynamic',
      protocol: 'test',
    });
    const events: GraphEvent[] = [];
    let cancelledAt = 0;
    for await (const e of handle.events()) {
      events.push(e);
      if (e.type === 'step.started' && e.stepId === 'manager-2' && !cancelledAt) {
        cancelledAt = Date.now();
        expect(p.engine.cancel(handle.id, 'stop the team')).toBe(true);
      }
    }
    const result = await handle.result;
    expect(result).toMatchObject({ status: 'cancelled', error: 'cancelled: stop the team' });
    const started = ofType(events, 'step.started').map((e) => e.stepId);
    const ended = new Map(finishedSteps(events).map((e) => [e.stepId, e.status]));
    for (const id of started) expect(ended.get(id)).toBe('cancelled');
    const requestsAtEnd = p.scripted.requests.filter((r) => r.runId === handle.id).length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(p.scripted.requests.filter((r) => r.runId === handle.id)).toHaveLength(requestsAtEnd);
  });

  it('the auto router picks a dynamic team for open-ended work, and says why', async () => {
    const { result, events } = await p.run({ query: 'Research the top 3 database vendors and compare them' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')[0]).toMatchObject({
      stage: 'dynamic',
      reason: expect.stringContaining('first finding'),
    });
    expect(spawned(events).length).toBeGreaterThan(0);
  });

  it('hybrid: a planned step that is a manager grows its own workers beside the planned steps', async () => {
    const { result, events } = await p.run({ query: 'Research security and database design', mode: 'hybrid' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'hybrid' });
    const plan = ofType(events, 'plan.ready')[0]!.plan;
    expect(plan.steps[0]).toMatchObject({ id: 's1', manager: true });
    expect(plan.steps.length).toBeGreaterThan(1);
    const children = spawned(events);
    expect(children.length).toBeGreaterThan(0);
    expect(children.every((c) => c.parentStepId === 's1')).toBe(true);
    const done = new Map(finishedSteps(events).map((e) => [e.stepId, e.status]));
    for (const s of [...plan.steps.map((s) => s.id), ...children.map((c) => c.stepId)])
      expect(done.get(s)).toBe('succeeded');
  });

  it('a later similar query starts from the team the first dynamic run grew (router stage 1)', async () => {
    const first = await p.run({ query: 'Review the security of the login code', mode: 'dynamic' });
    expect(first.result.status).toBe('completed');
    const grown = spawned(first.events).map((e) => e.specialist);
    const second = await p.run({ query: 'Review the security of a login code!', mode: 'dynamic' });
    expect(second.result.status).toBe('completed');
    const route = ofType(second.events, 'route.decided')[0]!;
    expect(route).toMatchObject({
      stage: 'team_config',
      reason: expect.stringContaining('an earlier dynamic run grew'),
    });
    // The proven shape is planned up front: the workers first, the manager reading their results.
    const steps = ofType(second.events, 'plan.ready')[0]!.plan.steps;
    expect(steps.filter((s) => s.id !== 'manager').map((s) => s.specialist)).toEqual(grown);
    expect(steps.find((s) => s.id === 'manager')).toMatchObject({ dependsOn: grown.map((_, i) => `manager-${i + 1}`) });
    expect(spawned(second.events)).toHaveLength(0);
  });
});

describe('dynamic mode: safety rails', () => {
  const p = useTestParley({
    config: { engine: { dynamic: { maxDepth: 1, maxNodes: 4, maxIterations: 10, nodeTimeoutMs: 60_000 } } },
  });

  it('at the depth limit an agent is not offered spawn_agent, and does its part itself', async () => {
    const { result, events } = await p.run({ query: 'Research security [[spawn:1]] [[depth:3]]', mode: 'dynamic' });
    expect(result.status).toBe('completed');
    // manager-1 is a manager at depth 1 = the limit: it is not offered spawn_agent, so it works itself.
    expect(spawned(events).map((e) => `${e.stepId}:${e.role}`)).toEqual(['manager-1:manager']);
    const offered = p.scripted.requests
      .filter((r) => r.runId === result.runId)
      .map((r) => (r.body as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name) ?? []);
    expect(offered.some((names) => names.includes('spawn_agent'))).toBe(true);
    expect(offered.some((names) => names.length > 0 && !names.includes('spawn_agent'))).toBe(true);
  });

  it('a spawn beyond the node limit is refused with the reason', async () => {
    const { result, events } = await p.run({
      query: 'Research security and database design [[spawn:5]]',
      mode: 'dynamic',
    });
    expect(result.status).toBe('completed');
    expect(spawned(events)).toHaveLength(3);
    const manager = finishedSteps(events).find((e) => e.stepId === 'manager')!;
    expect(manager.output).toContain('spawn refused: the run has 4 steps, the most one run may have (4).');
  });
});

describe('dynamic mode: budgets', () => {
  const p = useTestParley();

  it('a spawn the run budget cannot afford is refused to the model with the reason; the run completes within budget', async () => {
    const { result, events } = await p.run({
      query: 'Research security and database design [[spawn:8]]',
      mode: 'dynamic',
      budget: { modelCalls: 10 },
    });
    expect(result.status).toBe('completed');
    expect(result.usage.modelCalls).toBeLessThanOrEqual(10);
    expect(spawned(events).length).toBeLessThan(8);
    const manager = finishedSteps(events).find((e) => e.stepId === 'manager')!;
    expect(manager.output).toContain("spawn refused: the run's budget:");
    expect(manager.output).toContain('model calls are made');
  });
});

describe('dynamic mode: an approval inside a spawned agent (real MCP server)', () => {
  const notes = useNotesParley('skills:dynamic-test');
  const p = notes.parley;

  it('the spawned worker asks, waits for the human, and writes once accepted', async () => {
    const before = notes.mcp.state.writes.length;
    const handle = p.engine.start({
      query: 'Save the meeting notes [[spawn:1]] [[tool:notes/write_note {"path":"standup.md","content":"ship it"}]]',
      mode: 'dynamic',
      protocol: 'test',
    });
    const events: GraphEvent[] = [];
    for await (const e of handle.events()) {
      events.push(e);
      if (e.type === 'approval.requested' && e.request.kind === 'tool') {
        expect(e.request.stepId).toBe('manager-1');
        expect(notes.mcp.state.writes.length).toBe(before);
        const call = e.request.toolCalls[0]!;
        const answer = await p.approvals.resolve(
          e.request.id,
          { kind: 'tool', decisions: { [call.toolCallId]: { type: 'accept' } } },
          'tester',
        );
        expect(answer.ok).toBe(true);
      }
    }
    const result = await handle.result;
    expect(result.status).toBe('completed');
    expect(spawned(events)).toMatchObject([{ stepId: 'manager-1', specialist: 'notes-keeper' }]);
    expect(ofType(events, 'approval.resolved')[0]!.outcome.resolvedBy).toBe('human');
    expect(notes.mcp.state.writes.length).toBe(before + 1);
    expect(ofType(events, 'tool.finished')[0]).toMatchObject({ stepId: 'manager-1', status: 'ok' });
  });
});
