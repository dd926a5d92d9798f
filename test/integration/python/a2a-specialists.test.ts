/**
 * Python A2A agents as Parley specialists (issue 45): an agent built with the a2a-sdk
 * (test/python/tide_agent.py) and a LangGraph graph served over A2A with the same SDK
 * (test/python/langgraph_agent.py), each a real process on 127.0.0.1. Parley ingests their agent cards
 * into the registry the way `PARLEY_A2A_PEERS` does at start-up (ingestAll), its planner (the scripted
 * model) puts them in plans, A2aPeerHost calls them over JSON-RPC with the JS SDK and follows their
 * streams, and what they stream reaches the verifier and the synthesizer. The LangGraph peer shares a
 * plan with Parley's own specialists (the repo's roster).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAll } from '../../../src/knowledge/ingest/ingest.ts';
import { A2aPeerHost } from '../../../src/tools/a2a-peer.ts';
import { createTestParley, REPO_SPECIALISTS_DIR, type TestParley } from '../../support/engine.ts';
import { freePort } from '../../support/free-port.ts';
import {
  pythonMissing,
  pythonVenv,
  PYTHON_VENV_TIMEOUT_MS,
  startPythonServer,
  type PythonServer,
} from '../../support/python.ts';
import { ofType } from '../../support/run-events.ts';

const CARD = '/.well-known/agent-card.json';
const missing = pythonMissing();
if (missing) console.warn(missing);

describe.skipIf(missing)('Python A2A agents as specialists in a plan', () => {
  let tides: PythonServer;
  let graph: PythonServer;
  let parley: TestParley;
  beforeAll(async () => {
    const venv = await pythonVenv();
    // One after the other: each is closed after the file even when the other fails to start.
    tides = await startPythonServer(venv, 'tide_agent.py', await freePort(), CARD);
    graph = await startPythonServer(venv, 'langgraph_agent.py', await freePort(), CARD);
    parley = await createTestParley({ peers: new A2aPeerHost() });
    // What start-up does with PARLEY_A2A_PEERS: the cards become `a2a` specialists beside the roster.
    const report = await ingestAll({
      store: parley.store,
      skillsDirs: [REPO_SPECIALISTS_DIR],
      a2aPeers: [tides.url, graph.url],
    });
    expect(report.unavailable).toEqual([]);
  }, PYTHON_VENV_TIMEOUT_MS);
  afterAll(async () => {
    await parley?.close();
    await Promise.all([tides?.close(), graph?.close()]);
  });

  /** The run's request of one role to the scripted model, as sent. */
  const sentBy = (runId: string, role: string) =>
    parley.scripted.requests
      .filter((r) => r.runId === runId && r.role === role)
      .map((r) => JSON.stringify(r.body))
      .join('\n');

  it('the a2a-sdk agent: its card is a registry specialist, a plan calls it, its streamed answer is verified and synthesized', async () => {
    const specialist = await parley.store.getSpecialist('a2a-tide-tables');
    expect(specialist).toMatchObject({
      kind: 'a2a',
      endpoint: tides.url,
      domains: ['tides', 'harbour', 'sailing'],
      available: true,
    });
    expect(specialist?.description).toContain('High and low water times');

    const { result, events } = await parley.run({
      query: 'When is high water at Brest harbour? Give the tide times [[route:plan]] [[steps:1]]',
      mode: 'orchestrate',
    });
    expect(result.status).toBe('completed');
    const [plan] = ofType(events, 'plan.ready');
    expect(plan!.plan.steps.map((s) => s.specialist)).toEqual(['a2a-tide-tables']);
    const [step] = ofType(events, 'step.finished');
    expect(step).toMatchObject({ specialist: 'a2a-tide-tables', status: 'succeeded', lineage: { kind: 'a2a' } });
    // The two artifact chunks, joined: the second was appended to the first.
    expect(step!.output).toContain(
      'Tide tables (python a2a-sdk): high water at Brest 06:12 and 18:40; low water 00:05',
    );
    expect(step!.lineage!.sources).toContain(`a2a:${tides.url}`);
    // Its progress text streamed into the step.
    expect(ofType(events, 'step.delta').map((e) => e.text)).toContain('reading the tide tables');
    // The verifier judged that output and the synthesizer wrote from it.
    expect(ofType(events, 'verify.result')[0]!.score).toBeGreaterThanOrEqual(0.9);
    expect(sentBy(result.runId, 'verifier')).toContain('high water at Brest 06:12 and 18:40');
    expect(sentBy(result.runId, 'synthesizer')).toContain('high water at Brest 06:12 and 18:40');
    expect(result.sources?.map((s) => s.specialist)).toContain('a2a-tide-tables');
  });

  it("the LangGraph graph: a peer specialist in one plan beside Parley's own", async () => {
    const specialist = await parley.store.getSpecialist('a2a-sea-forecast');
    expect(specialist).toMatchObject({ kind: 'a2a', endpoint: graph.url, available: true });

    const { result, events } = await parley.run({
      query:
        'Get the sea forecast for Fastnet, then write documentation for the crew [[route:plan]] [[steps:2]] [[verify:0.9]]',
      mode: 'orchestrate',
    });
    expect(result.status).toBe('completed');
    const [plan] = ofType(events, 'plan.ready');
    expect(plan!.plan.steps.map((s) => s.specialist).sort()).toEqual(['a2a-sea-forecast', 'writer']);
    const finished = ofType(events, 'step.finished');
    expect(finished.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    const peerStep = finished.find((s) => s.specialist === 'a2a-sea-forecast')!;
    expect(peerStep.lineage).toMatchObject({ kind: 'a2a' });
    // The graph read the area from the objective, looked up its forecast and advised: three nodes.
    expect(peerStep.output).toContain('Sea forecast (langgraph) for Fastnet: south-west 4, slight sea');
    const nodes = ofType(events, 'step.delta')
      .filter((e) => e.stepId === peerStep.stepId)
      .map((e) => e.text);
    expect(nodes).toEqual(
      expect.arrayContaining([
        'langgraph node read_area done',
        'langgraph node forecast done',
        'langgraph node advise done',
      ]),
    );
    // Parley's own writer ran with its prompt through the model; both outputs went to the verifier and the synthesizer.
    const writerStep = finished.find((s) => s.specialist === 'writer')!;
    expect(writerStep.lineage).toMatchObject({ kind: 'prompt' });
    for (const role of ['verifier', 'synthesizer']) {
      expect(sentBy(result.runId, role)).toContain('south-west 4, slight sea');
      expect(sentBy(result.runId, role)).toContain('"specialist\\":\\"writer\\"');
    }
  });
});
