import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import type { ApprovalPort, ApprovalRequest } from '../../../src/hitl/types.ts';
import { McpToolHost } from '../../../src/tools/mcp-host.ts';
import { parseMcpConfig } from '../../../src/tools/mcp-config.ts';
import type { ApprovalRecord } from '../../../src/knowledge/store.ts';
import { listen, type TestServer } from '../../support/http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';

const STDIO_SERVER = join(import.meta.dirname, '../../fixtures/tools/stdio-server.ts');
const KEY = 'k-elicit';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

let http: FixtureHttpServer;
let api: TestServer;
let host: McpToolHost;
const records: ApprovalRecord[] = [];
const broker = new ApprovalBroker({
  timeoutMs: 30_000,
  defaultDecision: 'deny',
  recordApproval: async (r) => void records.push(r),
});

beforeAll(async () => {
  http = await startFixtureHttpServer();
  const app = new Hono();
  app.use('/api/*', bearerAuth({ token: KEY }));
  app.route('/', approvalRoutes({ broker }));
  api = await listen(app);
  host = new McpToolHost({
    // As the server wires it: the loaded mcp_config.json.
    servers: parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          web: { url: http.mcpUrl },
          local: { command: process.execPath, args: ['--import', 'tsx', STDIO_SERVER] },
        },
      }),
    ).servers,
    settings: {
      connect: 'eager',
      timeoutMs: 10_000,
      breakerThreshold: 5,
      breakerCooldownMs: 30_000,
      resultMaxChars: 20_000,
    },
    approvals: broker,
  });
  await host.start();
});
afterAll(async () => {
  await host.close();
  await broker.close();
  await api.close();
  await http.close();
});

async function pendingFor(runId: string): Promise<ApprovalRequest> {
  let found: ApprovalRequest | undefined;
  await expect
    .poll(async () => {
      const res = await fetch(`${api.url}/api/approvals?runId=${runId}`, { headers: auth });
      found = ((await res.json()) as { approvals: ApprovalRequest[] }).approvals[0];
      return found;
    })
    .toBeDefined();
  return found!;
}

const approve = (body: unknown) =>
  fetch(`${api.url}/api/approve`, { method: 'POST', headers: auth, body: JSON.stringify(body) });

describe('MCP elicitation through the approval broker', () => {
  it('Streamable HTTP: elicitation/create becomes an elicitation request; accept + content returns to the server', async () => {
    const call = host.callTool(
      'web/ask_city',
      {},
      { runId: 'run-h', stepId: 'step-7', toolCallId: 'c1', signal: new AbortController().signal },
    );
    const request = await pendingFor('run-h');
    expect(request).toMatchObject({
      kind: 'elicitation',
      runId: 'run-h',
      stepId: 'step-7',
      source: 'mcp:web',
      message: 'Which city should I use?',
      requestedSchema: { required: ['city'] },
    });
    const bad = await approve({ request_id: request.id, action: 'accept', content: { town: 'Oslo' } });
    expect(bad.status).toBe(400);
    const res = await approve({ request_id: request.id, action: 'accept', content: { city: 'Oslo' } });
    expect(res.status).toBe(200);
    expect(await call).toMatchObject({ ok: true, text: 'city: Oslo' });
    expect(records.filter((r) => r.id === request.id).map((r) => r.resolvedBy ?? 'requested')).toEqual([
      'requested',
      'human',
    ]);
  });

  it('stdio: decline travels back to the server', async () => {
    const call = host.callTool(
      'local/ask_city',
      {},
      { runId: 'run-s', stepId: 's1', toolCallId: 'c2', signal: new AbortController().signal },
    );
    const request = await pendingFor('run-s');
    expect(request).toMatchObject({ kind: 'elicitation', source: 'mcp:local', stepId: 's1' });
    expect((await approve({ id: request.id, action: 'decline' })).status).toBe(200);
    expect(await call).toMatchObject({ ok: true, text: 'city: (decline)' });
  });

  it('the call context port wins (the engine passes one that emits events); cancelling the call cancels the question', async () => {
    const seen: string[] = [];
    const enginePort: Pick<ApprovalPort, 'request'> = {
      request: (input, options) => {
        const issued = broker.request(input, options);
        seen.push(issued.request.id);
        return issued;
      },
    };
    const controller = new AbortController();
    const call = host.callTool(
      'web/ask_city',
      {},
      { runId: 'run-c', stepId: 's', toolCallId: 'c3', signal: controller.signal, approvals: enginePort },
    );
    const request = await pendingFor('run-c');
    expect(seen).toEqual([request.id]);
    controller.abort();
    expect(await call).toMatchObject({ ok: false, error: expect.stringMatching(/cancelled/) });
    expect(broker.get(request.id)).toBeUndefined();
    await expect.poll(() => records.find((r) => r.id === request.id && r.resolvedBy)?.resolvedBy).toBe('cancelled');
  });
});
