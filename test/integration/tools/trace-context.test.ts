/** The active trace context reaches MCP servers (`_meta.traceparent`) and A2A peers (`traceparent` header). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { propagation, type TextMapPropagator } from '@opentelemetry/api';
import { McpToolHost } from '../../../src/tools/mcp-host.ts';
import { A2aPeerHost } from '../../../src/tools/a2a-peer.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';
import { startPeerFixture, type PeerFixture } from '../../fixtures/tools/a2a-peer-server.ts';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
// Stands in for the W3C propagator the OpenTelemetry NodeSDK registers when telemetry is on.
const fixedPropagator: TextMapPropagator = {
  inject: (_ctx, carrier, setter) => setter.set(carrier, 'traceparent', TRACEPARENT),
  extract: (ctx) => ctx,
  fields: () => ['traceparent'],
};

let mcp: FixtureHttpServer;
let peer: PeerFixture;
beforeAll(async () => {
  mcp = await startFixtureHttpServer();
  peer = await startPeerFixture({ streaming: true });
});
afterAll(async () => {
  propagation.disable();
  await mcp.close();
  await peer.close();
});

const settings = {
  connect: 'lazy' as const,
  timeoutMs: 10_000,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
  resultMaxChars: 20_000,
};
const ctx = { runId: 'r', stepId: 's', toolCallId: 'c', signal: new AbortController().signal };

describe('trace context propagation', () => {
  it('adds nothing while telemetry is off, and the traceparent once a propagator is registered', async () => {
    const host = new McpToolHost({ servers: { web: { url: mcp.mcpUrl } }, settings });
    const peers = new A2aPeerHost();
    try {
      expect((await host.callTool('web/read_note', { path: 'a' }, ctx)).ok).toBe(true);
      expect((await peers.run(peer.url, 'echo one', ctx)).ok).toBe(true);
      expect((mcp.state.meta.at(-1) as { traceparent?: string } | undefined)?.traceparent).toBeUndefined();
      expect(peer.traceparents.at(-1)).toBe('');

      propagation.setGlobalPropagator(fixedPropagator);
      expect((await host.callTool('web/read_note', { path: 'b' }, ctx)).ok).toBe(true);
      expect((await peers.run(peer.url, 'echo two', ctx)).ok).toBe(true);
      expect(mcp.state.meta.at(-1)).toMatchObject({ traceparent: TRACEPARENT });
      expect(peer.traceparents.at(-1)).toBe(TRACEPARENT);
    } finally {
      propagation.disable();
      await host.close();
    }
  });
});
