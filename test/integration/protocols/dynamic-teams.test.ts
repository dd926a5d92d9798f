/**
 * A dynamic team seen through every protocol, each with its own client over real HTTP: the graph
 * grows while the run goes on, and each adapter shows it in its own terms — AG-UI state (the spawned
 * steps in STATE_DELTA, applied by HttpAgent), ACP plan entries added as they appear, A2A status
 * updates and artifacts, MCP progress, SSE events as they are.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventType, HttpAgent, type BaseEvent } from '@ag-ui/client';
import { methods, type PlanEntry } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { callerOf } from '../../../src/http/auth.ts';
import { silentLogger } from '../../../src/log.ts';
import { acpRoutes, type AcpRoutes } from '../../../src/protocols/acp/index.ts';
import { aguiRoutes } from '../../../src/protocols/agui/index.ts';
import { sseRoutes } from '../../../src/protocols/sse/index.ts';
import type { AguiState } from '../../../src/protocols/agui/state.ts';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { serveRoutes, type TestServer } from '../../support/http.ts';
import { recordingClient } from '../../support/protocols/acp-client.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { TaskState } from '@a2a-js/sdk';
import { collect, send, startA2ARig, text, type A2ARig } from '../../support/protocols/a2a-helpers.ts';
import { progressLog, startMcpHttp, structured, type AskResult } from '../../support/protocols/mcp-helpers.ts';

// One query per protocol: a repeated one would reuse the team the first run grew (router stage 1), planned up front.
// Each team succeeds and the scripted verifier has nothing to add, so the manager's result is the answer
// (docs/engine.md "The manager's answer"): the scripted manager's summary, never the synthesizer's "Answer to …".
// Written for the user: what the parts found, never which agent found it (issue 43).
const MANAGER_ANSWER = /^Answer to "[^"]+", from 2 parts of the work:\n- Scripted agent result for /;
const QUERY = 'Research security and database design [[spawn:2]]';
const SSE_QUERY = 'Compare caching layers for the billing service [[spawn:2]]';
const ACP_QUERY = 'Audit the authentication flow of the mobile app [[spawn:2]]';

let parley: TestParley;
let server: TestServer;
let acp: AcpRoutes;

beforeAll(async () => {
  parley = await createTestParley();
  const deps = { engine: parley.engine, approvals: parley.approvals, config: parley.config, logger: silentLogger };
  acp = acpRoutes({ engine: parley.engine, callerOf });
  server = await serveRoutes([
    { path: '/', app: aguiRoutes(deps) },
    { path: '/', app: sseRoutes(deps) },
    { path: '/', app: acp.app },
  ]);
});
afterAll(async () => {
  await acp?.close();
  await server?.close();
  await parley?.close();
});

describe('AG-UI', () => {
  it('the spawned agents join the shared state as they appear (STATE_DELTA), with their parent and role', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: QUERY });
    const events: BaseEvent[] = [];
    const sizes: number[] = [];
    await agent.runAgent(
      { runId: randomUUID(), forwardedProps: { parley: { mode: 'dynamic' } } },
      {
        onEvent: ({ event }) => void events.push(event),
        onStateChanged: ({ state }) => void sizes.push((state as AguiState).parley?.plan?.steps.length ?? 0),
      },
    );
    const steps = (agent.state as AguiState).parley.plan!.steps;
    // The workers are named by their role (the scripted manager names each by its specialist).
    expect(steps.map((s) => [s.id, s.parentStepId, s.role, s.status])).toEqual([
      ['manager', undefined, 'manager', 'succeeded'],
      ['security', 'manager', 'worker', 'succeeded'],
      ['database', 'manager', 'worker', 'succeeded'],
    ]);
    // The graph grew in deltas: one step, then two, then three.
    expect([...new Set(sizes)].filter((n) => n > 0)).toEqual([1, 2, 3]);
    expect(events.some((e) => e.type === EventType.STATE_DELTA)).toBe(true);
    expect((agent.state as AguiState).parley.team?.memory).toHaveProperty('findings');
    const said = events
      .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => (e as BaseEvent & { delta: string }).delta)
      .join('');
    expect(said).toMatch(MANAGER_ANSWER);
  });
});

describe('SSE', () => {
  it('streams step.spawned, context.written and the spawned steps as they happen', async () => {
    const res = await postJson(`${server.url}/stream`, { query: SSE_QUERY, mode: 'dynamic' });
    expect(res.status).toBe(200);
    const events = (await readAll(res)).map(
      (m) => m.json as { type: string; stepId?: string; parentStepId?: string; output?: string; answer?: string },
    );
    const ids = events.filter((e) => e.type === 'step.spawned').map((e) => e.stepId!);
    expect(ids).toHaveLength(2);
    expect(ids.some((id) => /^manager-\d/.test(id))).toBe(false);
    const spawnedAt = events.findIndex((e) => e.type === 'step.spawned');
    const startedAt = events.findIndex((e) => e.type === 'step.started' && e.stepId === ids[0]);
    expect(startedAt).toBeGreaterThan(spawnedAt);
    expect(events.some((e) => e.type === 'context.written')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const manager = events.find((e) => e.type === 'step.finished' && e.stepId === 'manager')!;
    expect(manager.output).toMatch(MANAGER_ANSWER);
    expect(events.at(-1)!.answer).toBe(manager.output);
    expect(events.filter((e) => e.type === 'node.started').map((e) => (e as { node?: string }).node)).toContain(
      'synthesizer',
    );
  });
});

describe('ACP', () => {
  it('session mode "dynamic": plan entries are added as the agents are spawned', async () => {
    const rc = recordingClient();
    await rc.app.connectWith(createHttpStream(`${server.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: 'dynamic' });
      const response = await session.prompt(ACP_QUERY);
      expect(response.stopReason).toBe('end_turn');
      const plans = rc.notifications
        .filter((n) => n.sessionId === session.sessionId && n.update.sessionUpdate === 'plan')
        .map((n) => (n.update as { entries: PlanEntry[] }).entries);
      expect([...new Set(plans.map((p) => p.length))]).toEqual([1, 2, 3]);
      const last = plans.at(-1)!;
      expect(last.map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
      expect(last[1]!.content).toMatch(/^[a-z-]+ \(spawned by manager\): Audit the authentication flow/);
      const said = rc.notifications
        .filter((n) => n.sessionId === session.sessionId && n.update.sessionUpdate === 'agent_message_chunk')
        .map((n) => {
          const content = (n.update as { content: { type: string; text?: string } }).content;
          return content.type === 'text' ? (content.text ?? '') : '';
        })
        .join('');
      expect(said).toMatch(MANAGER_ANSWER);
    });
  });
});

describe('A2A', () => {
  let rig: A2ARig;
  beforeAll(async () => {
    rig = await startA2ARig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('metadata.mode "dynamic": each spawn is a status update, each agent an artifact', async () => {
    const events = await collect(
      rig.client.sendMessageStream(
        send([text('noter: keep notes on two things [[spawn:2]]')], {}, { mode: 'dynamic' }),
      ),
    );
    const progress = events
      .map((e) => (e.payload?.$case === 'statusUpdate' ? e.payload.value.metadata : undefined))
      .map((m) => (m as { parley?: { event?: string; stepId?: string; parentStepId?: string } } | undefined)?.parley)
      .filter((p) => p?.event === 'step.spawned');
    expect(progress.map((p) => `${p!.parentStepId}>${p!.stepId}`)).toEqual(['manager>noter', 'manager>noter-2']);
    const artifacts = events
      .map((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact?.name : undefined))
      .filter(Boolean);
    expect(artifacts).toEqual(expect.arrayContaining(['step manager', 'step noter', 'step noter-2']));
    const answer = events
      .flatMap((e) =>
        e.payload?.$case === 'artifactUpdate' && e.payload.value.artifact?.artifactId === 'answer'
          ? e.payload.value.artifact.parts
          : [],
      )
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('');
    expect(answer).toMatch(MANAGER_ANSWER);
    const last = events.at(-1)!;
    expect(last.payload?.$case === 'statusUpdate' && last.payload.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });
});

describe('MCP', () => {
  let mcp: Awaited<ReturnType<typeof startMcpHttp>>;
  beforeAll(async () => {
    mcp = await startMcpHttp();
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('ask with mode "dynamic": progress says who spawned whom', async () => {
    const client = await mcp.connect();
    const progress = progressLog();
    const out = structured<AskResult>(
      await client.callTool(
        { name: 'ask', arguments: { query: 'noter: keep notes on two things [[spawn:2]]', mode: 'dynamic' } },
        { onprogress: progress.onprogress },
      ),
    );
    expect(out.status).toBe('completed');
    expect(out.answer).toMatch(MANAGER_ANSWER);
    const lines = progress.seen.map((s) => s.message ?? '');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^manager spawned noter \(worker, noter\): /),
        expect.stringMatching(/^manager spawned noter-2 \(worker, noter\): /),
      ]),
    );
  });
});
