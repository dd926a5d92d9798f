/** The mcp and a2a specialist kinds, over a real MCP server and a real A2A peer (a second Parley). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { useTestParley } from '../../support/use-test-parley.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';
import { listen, type TestServer } from '../../support/http.ts';
import { a2aRoutes } from '../../../src/protocols/a2a/index.ts';
import { A2aPeerHost } from '../../../src/tools/a2a-peer.ts';
import { silentLogger } from '../../../src/log.ts';
import type { SpecialistRecord } from '../../../src/knowledge/store.ts';
import { ofType } from '../../support/run-events.ts';

const base = {
  name: 'x',
  prompt: '',
  modelRole: 'specialist' as const,
  tools: [],
  sourceId: 'skills:specialists-test',
  available: true,
  domains: [],
};

let mcp: FixtureHttpServer;
let peerServer: TestServer;

beforeAll(async () => {
  mcp = await startFixtureHttpServer();
});
afterAll(async () => {
  await mcp.close();
});
const peer = useTestParley();
beforeAll(async () => {
  const app = new Hono();
  peerServer = await listen(app);
  app.route(
    '/',
    a2aRoutes({
      engine: peer.engine,
      store: peer.store,
      config: peer.config,
      logger: silentLogger,
      publicUrl: peerServer.url,
    }),
  );
});
afterAll(async () => {
  await peerServer.close();
});
const p = useTestParley(() => {
  const specialists: SpecialistRecord[] = [
    {
      ...base,
      id: 'notes-server',
      kind: 'mcp',
      endpoint: 'notes',
      description: 'The notes MCP server: reads and writes notes',
      domains: ['notes'],
    },
    {
      ...base,
      id: 'remote-parley',
      kind: 'a2a',
      endpoint: peerServer.url,
      description: 'A remote agent that answers questions about tides',
      domains: ['tides'],
    },
  ];
  return { roster: false, specialists, mcpServers: { notes: { url: mcp.mcpUrl } }, peers: new A2aPeerHost() };
});

describe('specialist kinds', () => {
  it("mcp: the server's tools as a specialist, offered only that server's tools", async () => {
    const { result, events } = await p.run({
      query: 'Read the notes [[tool:notes/read_note {"path":"x.md"}]]',
      mode: 'orchestrate',
    });
    expect(result.status).toBe('completed');
    const step = ofType(events, 'step.finished')[0]!;
    expect(step).toMatchObject({ specialist: 'notes-server', status: 'succeeded', lineage: { kind: 'mcp' } });
    expect(step.output).toContain('note at x.md: hello');
    const call = p.scripted.requests.find((r) => r.runId === result.runId && r.role === 'specialist')!;
    expect(call.tools.length).toBeGreaterThan(1);
    expect(call.tools.every((t) => t.startsWith('notes__'))).toBe(true);
  });

  it("lineage: a step's usage counts its tool calls", async () => {
    const { result, events } = await p.run({
      query: 'Read both notes [[tool:notes/read_note {"path":"a.md"}]] [[tool:notes/read_note {"path":"b.md"}]]',
      mode: 'orchestrate',
    });
    expect(result.status).toBe('completed');
    const step = ofType(events, 'step.finished')[0]!;
    expect(ofType(events, 'tool.finished').filter((e) => e.stepId === step.stepId)).toHaveLength(2);
    expect(step.lineage!.toolCalls).toHaveLength(2);
    expect(step.lineage!.usage.toolCalls).toBe(2);
    expect(result.usage.toolCalls).toBe(2);
  });

  it('a2a: the objective goes to a peer agent over A2A and its answer is the step output', async () => {
    const { result, events } = await p.run({ query: 'Ask about tides in the bay', mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    const step = ofType(events, 'step.finished')[0]!;
    expect(step).toMatchObject({ specialist: 'remote-parley', status: 'succeeded', lineage: { kind: 'a2a' } });
    expect(step.lineage!.sources).toContain(`a2a:${peerServer.url}`);
    // The peer ran the objective through its own engine and model.
    const peerRuns = new Set(peer.scripted.requests.map((r) => r.runId));
    expect(peerRuns.size).toBeGreaterThan(0);
    expect(step.output).toMatch(/tides in the bay/);
  });
});
