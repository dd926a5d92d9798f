/**
 * Checkpoints and forks through the real server (createParley, POST /stream, the HTTP routes) and the
 * built-in scripted model's request log: a fork makes only the calls of what it did not carry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { GraphEventOf } from '../../../src/graph/run/events.ts';
import type { Parley } from '../../../src/server.ts';
import { postJson } from '../../support/protocols/sse-read.ts';
import { ofType } from '../../support/run-events.ts';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../../support/server.ts';
import { bearer, fork, getCheckpoint, listCheckpoints, runToEnd } from '../../support/time-travel.ts';

const K1 = 'tt-key-one';
const K2 = 'tt-key-two';
let server: ShippedParley;
let parley: Parley;
let url: string;

beforeAll(async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: `${K1},${K2}`, PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG });
  ({ parley, url } = server);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const requestsOf = (runId: string) => parley.scripted!.requests.filter((r) => r.runId === runId);
const CHAIN = 'Draft the release notes for version two [[steps:5]] [[chain]]';

describe('checkpoints', () => {
  it('lists routing, planning, each step, verification and synthesis; one by id holds what it did', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const runId = events[0]!.runId;
    const checkpoints = await listCheckpoints(url, K1, runId);
    expect(checkpoints.map((c) => c.kind)).toEqual([
      'routed',
      'planned',
      'step',
      'step',
      'step',
      'step',
      'step',
      'verified',
      'before_synthesis',
    ]);
    // The list is light: counts and usage, no plan and no step output.
    const listedThird = checkpoints[4]!;
    expect(listedThird).toMatchObject({
      label: 'after step s3 (succeeded)',
      planSteps: 5,
      stepsFinished: 3,
      stepsSucceeded: 3,
      stepId: 's3',
    });
    expect(listedThird).not.toHaveProperty('steps');
    expect(listedThird).not.toHaveProperty('plan');
    expect(listedThird.usage.modelCalls).toBeGreaterThanOrEqual(3);
    expect(checkpoints[7]!.score).toBeGreaterThan(0.7);
    // Ids are unique and name the event they follow.
    expect(new Set(checkpoints.map((c) => c.id)).size).toBe(checkpoints.length);

    // One checkpoint by id holds the plan and every finished step with its output.
    const third = await getCheckpoint(url, K1, runId, listedThird.id);
    expect(third).toMatchObject({ id: listedThird.id, kind: 'step', label: 'after step s3 (succeeded)' });
    expect(third.plan?.steps).toHaveLength(5);
    expect(third.steps.map((s) => s.stepId)).toEqual(['s1', 's2', 's3']);
    const finished = ofType(events, 'step.finished');
    expect(third.steps.map((s) => s.output)).toEqual(finished.slice(0, 3).map((e) => e.output));
    expect(third.usage).toEqual(listedThird.usage);
    expect((await getCheckpoint(url, K1, runId, checkpoints[7]!.id)).verification?.score).toBe(checkpoints[7]!.score);
  });

  it('answers an unknown checkpoint, and another caller, with 404 in the API shape', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const runId = events[0]!.runId;
    const [first] = await listCheckpoints(url, K1, runId);
    for (const id of ['cp-99999', 'nonsense', 'cp-']) {
      const res = await fetch(`${url}/api/runs/${runId}/checkpoints/${id}`, { headers: bearer(K1) });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: {
          code: 'not_found',
          message: `Run ${runId} has no checkpoint "${id}" (GET /api/runs/${runId}/checkpoints lists them).`,
        },
      });
    }
    const other = await fetch(`${url}/api/runs/${runId}/checkpoints/${first!.id}`, { headers: bearer(K2) });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: { code: 'not_found', message: `No run with id "${runId}".` } });
    const noRun = await fetch(`${url}/api/runs/no-such-run/checkpoints/${first!.id}`, { headers: bearer(K1) });
    expect(noRun.status).toBe(404);
  });
});

describe('fork', () => {
  it('from after the 3rd of 5 steps makes only the calls of steps 4-5, verification and synthesis', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const parentId = events[0]!.runId;
    const checkpoint = (await listCheckpoints(url, K1, parentId)).find(
      (c) => c.kind === 'step' && c.stepsFinished === 3,
    )!;
    const { status, json, events: forked } = await fork(parley, url, K1, parentId, { checkpoint: checkpoint.id });
    expect(status).toBe(201);
    expect(json.forkedFrom).toEqual({ runId: parentId, checkpoint: checkpoint.id });
    const forkId = String(json.runId);
    expect(forkId).not.toBe(parentId);

    const started = forked[0] as GraphEventOf<'run.started'>;
    expect(started.forkedFrom).toEqual({ runId: parentId, checkpoint: checkpoint.id });
    expect(forked.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(ofType(forked, 'step.started').map((e) => e.stepId)).toEqual(['s4', 's5']);
    // Step 4 read step 3's carried output.
    const s3 = ofType(events, 'step.finished').find((e) => e.stepId === 's3')!;
    const s4 = ofType(forked, 'step.started').find((e) => e.stepId === 's4')!;
    expect(s4.objective).toContain(s3.output!);

    const calls = requestsOf(forkId);
    expect(calls.map((r) => r.role).sort()).toEqual(['specialist', 'specialist', 'synthesizer', 'verifier'].sort());
    expect(calls.some((r) => r.schemaName === 'route' || r.schemaName === 'graph_plan')).toBe(false);

    // The fork's own checkpoints hold the carried steps too: a fork of the fork carries them again.
    const own = await listCheckpoints(url, K1, forkId);
    const beforeSynthesis = await getCheckpoint(url, K1, forkId, own.find((c) => c.kind === 'before_synthesis')!.id);
    expect(beforeSynthesis.steps.map((s) => s.stepId).sort()).toEqual(['s1', 's2', 's3', 's4', 's5']);
  });

  it('runs an edited plan from the planning checkpoint, and edited outputs reach the next step', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const parentId = events[0]!.runId;
    const checkpoints = await listCheckpoints(url, K1, parentId);
    const planned = await getCheckpoint(url, K1, parentId, checkpoints.find((c) => c.kind === 'planned')!.id);
    const plan = {
      rationale: 'two steps instead of five',
      steps: [
        { id: 'a', specialist: planned.plan!.steps[0]!.specialist, objective: 'List the changes', dependsOn: [] },
        {
          id: 'b',
          specialist: planned.plan!.steps[1]!.specialist,
          objective: 'Write notes from {{a.result}}',
          dependsOn: ['a'],
        },
      ],
    };
    const edited = await fork(parley, url, K1, parentId, { checkpoint: planned.id, edit: { plan } });
    expect(edited.status).toBe(201);
    expect(ofType(edited.events, 'plan.ready')[0]!.plan.steps.map((s) => s.id)).toEqual(['a', 'b']);
    expect(ofType(edited.events, 'step.finished').map((e) => e.stepId)).toEqual(['a', 'b']);
    expect(edited.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });

    // A finished step's output edited at the checkpoint after s1: s2 reads the new one.
    const afterS1 = checkpoints.find((c) => c.kind === 'step' && c.stepsFinished === 1)!;
    const output = 'EDITED-OUTPUT-OF-S1';
    const withOutput = await fork(parley, url, K1, parentId, {
      checkpoint: afterS1.id,
      edit: { outputs: { s1: output } },
    });
    const s2 = ofType(withOutput.events, 'step.started').find((e) => e.stepId === 's2')!;
    expect(s2.objective).toContain(output);
    expect(ofType(withOutput.events, 'step.started').map((e) => e.stepId)).not.toContain('s1');
  });

  it('from after a passing verification round makes no verifier call: the verification is carried', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const parentId = events[0]!.runId;
    const parentVerify = ofType(events, 'verify.result')[0]!;
    const checkpoints = await listCheckpoints(url, K1, parentId);
    for (const kind of ['verified', 'before_synthesis'] as const) {
      const at = checkpoints.find((c) => c.kind === kind)!;
      const forked = await fork(parley, url, K1, parentId, { checkpoint: at.id });
      expect(forked.status, kind).toBe(201);
      const forkId = String(forked.json.runId);
      expect(forked.events.at(-1), kind).toMatchObject({ type: 'run.finished', status: 'completed' });
      expect(ofType(forked.events, 'step.started'), kind).toEqual([]);
      // The scripted model's request log: the synthesizer only.
      expect(
        requestsOf(forkId).map((r) => r.role),
        kind,
      ).toEqual(['synthesizer']);
      const verify = ofType(forked.events, 'verify.result');
      expect(verify, kind).toEqual([
        expect.objectContaining({
          round: parentVerify.round,
          score: parentVerify.score,
          next: 'synthesize',
          carriedFrom: parentId,
        }),
      ]);
      expect(ofType(forked.events, 'route.decided')[0]!.reason, kind).toContain(
        `verification round ${parentVerify.round} (score ${parentVerify.score}) carried, not asked again`,
      );
    }
    // An edited output was never verified: the verifier is asked.
    const at = checkpoints.find((c) => c.kind === 'verified')!;
    const edited = await fork(parley, url, K1, parentId, { checkpoint: at.id, edit: { outputs: { s5: 'new s5' } } });
    expect(edited.status).toBe(201);
    expect(requestsOf(String(edited.json.runId)).map((r) => r.role)).toEqual(['verifier', 'synthesizer']);
    expect(ofType(edited.events, 'verify.result')[0]!.carriedFrom).toBeUndefined();
  });

  it("a dynamic team's run forks from before its first spawned step finished; after that, a clear 400", async () => {
    const events = await runToEnd(parley, url, K1, {
      query: 'Find the top 3 open-source vector databases and compare their licences',
      mode: 'dynamic',
    });
    const parentId = events[0]!.runId;
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const spawned = ofType(events, 'step.spawned').map((e) => e.stepId);
    expect(spawned.length).toBeGreaterThan(0);
    const checkpoints = await listCheckpoints(url, K1, parentId);
    const last = checkpoints.at(-1)!;
    const calls = parley.scripted!.requests.length;
    const refused = await fork(parley, url, K1, parentId, { checkpoint: last.id });
    expect(refused.status).toBe(400);
    const message = (refused.json.error as { message: string }).message;
    expect(message).toContain(`checkpoint ${last.id} comes after steps a dynamic team spawned had finished`);
    expect(message).toContain('a fork cannot carry spawned steps: fork from a checkpoint before the first of them');
    expect(parley.scripted!.requests.length).toBe(calls);

    const planned = checkpoints.find((c) => c.kind === 'planned')!;
    const early = await fork(parley, url, K1, parentId, { checkpoint: planned.id });
    expect(early.status).toBe(201);
    expect(early.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(ofType(early.events, 'step.spawned').length).toBeGreaterThan(0);
  });

  it('refuses an unknown checkpoint and an invalid plan with 400, and starts nothing', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const parentId = events[0]!.runId;
    const planned = (await listCheckpoints(url, K1, parentId)).find((c) => c.kind === 'planned')!;
    const before = parley.engine.activeRuns;
    const calls = parley.scripted!.requests.length;

    const unknown = await fork(parley, url, K1, parentId, { checkpoint: 'cp-99999' });
    expect(unknown.status).toBe(400);
    expect((unknown.json.error as { message: string }).message).toContain('has no checkpoint "cp-99999"');

    const badPlan = {
      steps: [{ id: 'x', specialist: 'no-such-specialist', objective: 'do it', dependsOn: ['y'] }],
    };
    const invalid = await fork(parley, url, K1, parentId, { checkpoint: planned.id, edit: { plan: badPlan } });
    expect(invalid.status).toBe(400);
    const message = (invalid.json.error as { message: string }).message;
    expect(message).toMatch(/^invalid plan: /);
    expect(message).toContain('no-such-specialist');

    const malformed = await fork(parley, url, K1, parentId, { checkpoint: planned.id, edit: { plan: { steps: [] } } });
    expect(malformed.status).toBe(400);
    const badOutput = await fork(parley, url, K1, parentId, { checkpoint: planned.id, edit: { outputs: { s5: 'x' } } });
    expect(badOutput.status).toBe(400);
    expect((badOutput.json.error as { message: string }).message).toContain('step "s5" had not succeeded');
    const extra = await fork(parley, url, K1, parentId, { checkpoint: planned.id, surprise: 1 });
    expect(extra.status).toBe(400);

    expect(parley.engine.activeRuns).toBe(before);
    expect(parley.scripted!.requests.length).toBe(calls);
  });

  it('another caller can neither list nor fork your run', async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const runId = events[0]!.runId;
    const listed = await fetch(`${url}/api/runs/${runId}/checkpoints`, { headers: bearer(K2) });
    expect(listed.status).toBe(404);
    const unknown = await fetch(`${url}/api/runs/no-such-run/checkpoints`, { headers: bearer(K2) });
    expect(await listed.json()).toEqual({
      error: { code: 'not_found', message: `No run with id "${runId}".` },
    });
    expect(unknown.status).toBe(404);
    const forked = await postJson(`${url}/api/runs/${runId}/fork`, { checkpoint: 'cp-1' }, bearer(K2));
    expect(forked.status).toBe(404);
  });
});

describe('fork_run over MCP', () => {
  async function mcpClient(key: string) {
    const client = new Client({ name: `tt-${key}`, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer(key) } }),
    );
    return client;
  }

  it("forks the caller's run from a checkpoint and refuses another caller's like an unknown one", async () => {
    const events = await runToEnd(parley, url, K1, { query: CHAIN, mode: 'orchestrate' });
    const parentId = events[0]!.runId;
    const checkpoint = (await listCheckpoints(url, K1, parentId)).find(
      (c) => c.kind === 'step' && c.stepsFinished === 4,
    )!;
    const owner = await mcpClient(K1);
    try {
      const result = await owner.callTool({
        name: 'fork_run',
        arguments: { run_id: parentId, checkpoint: checkpoint.id },
      });
      expect(result.isError).toBeFalsy();
      const { runId, forkedFrom } = result.structuredContent as { runId: string; forkedFrom: unknown };
      expect(forkedFrom).toEqual({ runId: parentId, checkpoint: checkpoint.id });
      const forkResult = await parley.engine.get(runId)!.result;
      expect(forkResult.status).toBe('completed');
      expect(requestsOf(runId).filter((r) => r.role === 'specialist')).toHaveLength(1);

      const bad = await owner.callTool({ name: 'fork_run', arguments: { run_id: parentId, checkpoint: 'cp-0' } });
      expect(bad.isError).toBe(true);
    } finally {
      await owner.close();
    }
    const other = await mcpClient(K2);
    try {
      const refused = await other.callTool({
        name: 'fork_run',
        arguments: { run_id: parentId, checkpoint: checkpoint.id },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toBe(`No run with id "${parentId}".`);
    } finally {
      await other.close();
    }
  });
});
