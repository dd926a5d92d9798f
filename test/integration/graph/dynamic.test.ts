/**
 * Dynamic teams through the real engine: the scripted model over HTTP plays the manager and the
 * workers (docs/scripted-model.md), Kuzu holds the registry, and every agent is a step of the one
 * scheduler. Each case reads what a client would: the run's events and its result.
 */
import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { useNotesParley } from '../../support/use-notes-parley.ts';
import { ofType } from '../../support/run-events.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';

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
    // Named by their role (the scripted manager names each by its specialist), not "manager-N".
    for (const child of children)
      expect(child).toMatchObject({ stepId: child.specialist, parentStepId: 'manager', role: 'worker' });
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
    expect(manager.output).toContain('Also noted: ["Research the security');
    expect(writes.at(-1)).toMatchObject({ stepId: 'manager', key: 'summary' });
    // The verifier saw the emergent graph and passed it with nothing to add: the manager's result is the answer.
    expect(result.answer).toBe(manager.output);
    expect(result.sources?.map((s) => s.stepId)).toEqual(['manager', ...children.map((c) => c.stepId)]);
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
        'manager>lead-1:manager',
        'manager>lead-2:manager',
        'lead-1>lead-1-security:worker',
        'lead-1>lead-1-database:worker',
        'lead-2>lead-2-security:worker',
        'lead-2>lead-2-database:worker',
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
      'database>researcher:my part is done',
      'researcher>security:my part is done',
      'security>database:my part is done',
    ]);
    const outputs = new Map(finishedSteps(events).map((e) => [e.stepId, e.output ?? '']));
    expect(outputs.get('researcher')).toContain('Heard: [Message from database] my part is done');
    expect(outputs.get('database')).toContain('Heard: [Message from security] my part is done');
  });

  it('a deadlock ends the run failed, naming the cycle of waits', async () => {
    const { result, events } = await p.run({ query: 'Research security [[deadlock]]', mode: 'dynamic' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^deadlock: /);
    expect(result.error).toContain('manager waits for the agents it spawned (security)');
    expect(result.error).toContain('security waits for a message from manager');
    expect(result.error).toContain('manager → security → manager');
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
      const second = spawned(events)[1]?.stepId;
      if (e.type === 'step.started' && e.stepId === second && !cancelledAt) {
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
    // Its manager answers only its part of the plan: the synthesizer writes the answer from every step.
    const calls = p.scripted.requests.filter((r) => r.runId === result.runId);
    expect(calls.at(-1)!.role).toBe('synthesizer');
    expect(result.answer).toContain(`synthesized from ${plan.steps.length + children.length} step results`);
  });

  it('a later similar query starts from the team the first dynamic run grew (router stage 1)', async () => {
    const first = await p.run({ query: 'Review the security of the login code', mode: 'dynamic' });
    expect(first.result.status).toBe('completed');
    const grown = spawned(first.events).map((e) => e.specialist);
    const grownIds = spawned(first.events).map((e) => e.stepId);
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
    expect(steps.find((s) => s.id === 'manager')).toMatchObject({ dependsOn: grownIds });
    expect(spawned(second.events)).toHaveLength(0);
  });
});

describe("dynamic mode: the manager's answer", () => {
  // Each query its own run: no reuse of a team an earlier run grew (router stage 1).
  const p = useTestParley({ config: { knowledge: { teamReuse: false } } });
  const callsOfRun = (runId: string) => p.scripted.requests.filter((r) => r.runId === runId);
  const kinds = (runId: string) => callsOfRun(runId).map((r) => r.schemaName ?? r.role);

  it('the manager finished, every agent succeeded and the verifier had nothing to add: its result is the answer, with no synthesizer call', async () => {
    const query = 'Research security and database design [[spawn:2]]';
    const { result, events } = await p.run({ query, mode: 'dynamic' });
    expect(result.status).toBe('completed');
    // The manager's three turns, its two workers and the verifier: nothing after.
    expect(kinds(result.runId)).toEqual(['planner', 'specialist', 'specialist', 'planner', 'planner', 'verification']);
    expect(ofType(events, 'verify.result')[0]).toMatchObject({ next: 'synthesize', feedback: '' });
    const manager = finishedSteps(events).find((e) => e.stepId === 'manager')!;
    expect(manager.output).toMatch(/^Answer to "Research security and database design", from 2 parts of the work:/);
    // Out as an answer is: streamed, then on run.finished with the steps it came from and nothing missing.
    expect(ofType(events, 'answer.delta').map((d) => d.text)).toEqual([manager.output]);
    const finished = ofType(events, 'run.finished')[0]!;
    expect(finished).toMatchObject({ status: 'completed', answer: manager.output });
    expect(finished.sources).toEqual([
      { stepId: 'manager', specialist: 'manager' },
      ...spawned(events).map((e) => ({ stepId: e.stepId, specialist: e.specialist })),
    ]);
    expect(finished.failedSteps).toBeUndefined();

    // The root manager was told its result is what the user reads; its workers that theirs is their part.
    const system = (r: { body: unknown }) => JSON.stringify((r.body as { messages: unknown[] }).messages[0]);
    const managerCall = callsOfRun(result.runId).find((r) => r.role === 'planner')!;
    expect(system(managerCall)).toContain('Your finish result is the answer the user reads.');
    const finishTool = (r: { body: unknown }) =>
      (r.body as { tools: { function: { name: string; description: string } }[] }).tools.find(
        (t) => t.function.name === 'finish',
      )!.function;
    expect(finishTool(managerCall).description).toContain('the user reads your result as');
    const workerCall = callsOfRun(result.runId).find((r) => r.role === 'specialist')!;
    expect(system(workerCall)).toContain('Call finish with your result when your part is done.');
    expect(finishTool(workerCall).description).toBe('End your work with your result.');
  });

  it('a worker is not offered spawn_agent even where depth allows: only a manager spawns', async () => {
    const { result, events } = await p.run({
      query: 'Research security and database design [[spawn:2]]',
      mode: 'dynamic',
    });
    expect(result.status).toBe('completed');
    expect(spawned(events).map((e) => e.role)).toEqual(['worker', 'worker']);
    const offered = (role: string) =>
      p.scripted.requests
        .filter((r) => r.runId === result.runId && r.role === role)
        .map((r) => (r.body as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name) ?? []);
    // The workers, at depth 1 of at most 3 (the default), get their team tools but not spawn_agent…
    for (const names of offered('specialist')) {
      expect(names).toContain('finish');
      expect(names).not.toContain('spawn_agent');
    }
    const worker = p.scripted.requests.find((r) => r.runId === result.runId && r.role === 'specialist')!;
    expect(JSON.stringify(worker.body)).toContain('(worker, depth 1 of at most 3');
    // …and the manager, at depth 0, spawns.
    expect(offered('planner').some((names) => names.includes('spawn_agent'))).toBe(true);
  });

  it('the same team with verifier notes: one editor call names its edits, Parley applies them, the rest of the answer stays', async () => {
    const query = 'Research security and database design of the ledger [[spawn:2]] [[verify:0.9]]';
    const { result, events } = await p.run({ query, mode: 'dynamic' });
    expect(result.status).toBe('completed');
    const verdict = ofType(events, 'verify.result')[0]!;
    expect(verdict).toMatchObject({ next: 'synthesize', feedback: 'Scripted verification for round 1: score 0.9.' });
    expect(kinds(result.runId)).toEqual([
      'planner',
      'specialist',
      'specialist',
      'planner',
      'planner',
      'verification',
      'answer_edits',
    ]);
    const edit = callsOfRun(result.runId).at(-1)!;
    const manager = finishedSteps(events).find((e) => e.stepId === 'manager')!;
    // The revision request: the manager's answer and the notes, and the prompt of an editor who names edits.
    expect(edit.lastUserMessage).toContain(`<parley:answer>${manager.output}</parley:answer>`);
    expect(edit.lastUserMessage).toContain(`<parley:verifier_notes>${verdict.feedback}</parley:verifier_notes>`);
    const system = JSON.stringify((edit.body as { messages: unknown[] }).messages[0]);
    expect(system).toContain("You are Parley's editor.");
    expect(system).toContain('You do not write the answer out again');
    expect(system).toContain('Do not mention steps, their ids');
    // The scripted editor adds one line for the note after the last line: the answer is the manager's, revised,
    // and its output is the edit, not the answer again.
    expect(result.answer).toBe(`${manager.output}\n\nRevised where the review asked: ${verdict.feedback}`);
    expect(edit.answer!.length).toBeLessThan(manager.output!.length + 400);
    expect(JSON.parse(edit.answer!)).toMatchObject({ edits: [{ find: expect.any(String) as string }] });
  });

  it('an edit that does not apply: the answer is written out whole by the editor instead, never half-edited', async () => {
    const query = 'Research security and database design of the ledger [[spawn:2]] [[verify:0.9]] [[edits:miss]]';
    const { result, events } = await p.run({ query, mode: 'dynamic' });
    expect(result.status).toBe('completed');
    expect(kinds(result.runId).slice(-2)).toEqual(['answer_edits', 'synthesizer']);
    const whole = callsOfRun(result.runId).at(-1)!;
    expect(JSON.stringify((whole.body as { messages: unknown[] }).messages[0])).toContain(
      'keep its structure, wording, order and length everywhere else',
    );
    const verdict = ofType(events, 'verify.result')[0]!;
    const manager = finishedSteps(events).find((e) => e.stepId === 'manager')!;
    expect(result.answer).toBe(`${manager.output}\n\nRevised where the review asked: ${verdict.feedback}`);
    expect(result.answer).not.toContain('a passage this answer does not hold');
  });

  describe('an agent that fails', () => {
    // Every call of agent "database" fails with HTTP 500 (the client makes no retries in tests).
    const failing = useTestParley({
      config: { knowledge: { teamReuse: false } },
      faults: [{ role: 'specialist', contains: '(step database)', fault: '500', times: 1000 }],
    });

    it('still has the synthesizer write the answer, which says what is missing', async () => {
      const { result, events } = await failing.run({
        query: 'Research security and database design of the payroll [[spawn:2]]',
        mode: 'dynamic',
      });
      expect(result.status).toBe('completed');
      expect(
        finishedSteps(events)
          .filter((e) => e.status === 'failed')
          .map((e) => e.stepId),
      ).toContain('database');
      const calls = failing.scripted.requests.filter((r) => r.runId === result.runId);
      expect(calls.at(-1)!.role).toBe('synthesizer');
      expect(result.failedSteps?.map((f) => f.stepId)).toEqual(['database']);
      expect(result.answer).toContain('Not done (this answer is partial):');
    });
  });
});

describe('dynamic mode: safety rails', () => {
  const p = useTestParley({
    config: { engine: { dynamic: { maxDepth: 1, maxNodes: 4, maxIterations: 10, nodeTimeoutMs: 60_000 } } },
  });

  it('at the depth limit an agent is not offered spawn_agent, and does its part itself', async () => {
    const { result, events } = await p.run({ query: 'Research security [[spawn:1]] [[depth:3]]', mode: 'dynamic' });
    expect(result.status).toBe('completed');
    // lead-1 is a manager at depth 1 = the limit: it is not offered spawn_agent, so it works itself.
    expect(spawned(events).map((e) => `${e.stepId}:${e.role}`)).toEqual(['lead-1:manager']);
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
    expect(manager.output).toContain('Not split further: the run has 4 steps, the most one run may have (4).');
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
    expect(manager.output).toContain("Not split further: the run's budget:");
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
        expect(e.request.stepId).toBe('notes-keeper');
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
    expect(spawned(events)).toMatchObject([{ stepId: 'notes-keeper', specialist: 'notes-keeper' }]);
    expect(ofType(events, 'approval.resolved')[0]!.outcome.resolvedBy).toBe('human');
    expect(notes.mcp.state.writes.length).toBe(before + 1);
    expect(ofType(events, 'tool.finished')[0]).toMatchObject({ stepId: 'notes-keeper', status: 'ok' });
  });
});
