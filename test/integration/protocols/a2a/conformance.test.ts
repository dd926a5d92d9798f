/**
 * The A2A TCK's mandatory checks for what Parley serves beyond tasks (the TCK is a Python project and
 * PyPI is out of reach here; docs/protocols/a2a.md maps each check to its test), through the real HTTP
 * app with API keys and the SDK clients: the Content-Type errors of JSON-RPC (-32005) and HTTP+JSON (415),
 * the signed agent card (verified by the SDK's verifier against the key at the signature's `jku`), and
 * the extended card for callers with a key, on all three bindings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JWK } from 'jose';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { EXTENDED_SKILLS } from '../../../../src/protocols/a2a/card.ts';
import { a2aClientAs, send, text } from '../../../support/protocols/a2a-helpers.ts';
import {
  a2aGrpcClientAs,
  newSigningKey,
  startA2AServerRig,
  type A2AServerRig,
} from '../../../support/protocols/a2a-server-rig.ts';

let rig: A2AServerRig;
let open: A2AServerRig;
beforeAll(async () => {
  rig = await startA2AServerRig({ keys: ['key-alice'], signingKey: newSigningKey() });
  open = await startA2AServerRig();
});
afterAll(async () => {
  await rig?.close();
  await open?.close();
});

const alice = { authorization: 'Bearer key-alice', 'A2A-Version': '1.0' };
type ErrorInfo = { '@type': string; reason: string; domain: string };

/** The SDK's verifier with the public key fetched from the signature's `jku`, matched by `kid`. */
const verifier = (jkus: string[] = []) =>
  verifyAgentCardSignature(async (kid, jku) => {
    jkus.push(jku ?? '');
    const { keys } = (await (await fetch(jku!)).json()) as { keys: (JWK & { kid: string })[] };
    const jwk = keys.find((k) => k.kid === kid);
    if (!jwk) throw new Error(`no key ${kid}`);
    return jwk;
  });

describe('Content-Type errors (TCK JSONRPC-SSE-002, HTTP_JSON-STATUS-001, CORE-SEND-003)', () => {
  it('JSON-RPC: a text/plain or untyped body is -32005 with HTTP 200 and the ErrorInfo, through the real app', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    });
    const before = rig.parley.engine.activeRuns;
    for (const type of ['text/plain', undefined]) {
      const res = await fetch(`${rig.server.url}/a2a`, {
        method: 'POST',
        headers: { ...alice, ...(type ? { 'content-type': type } : {}) },
        body: type ? body : new Blob([body]),
      });
      expect(res.status).toBe(200);
      const reply = (await res.json()) as { id: null; error: { code: number; message: string; data: ErrorInfo[] } };
      expect(reply.error.code).toBe(-32005);
      expect(reply.error.data).toContainEqual(
        expect.objectContaining({ reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org' }),
      );
    }
    expect(rig.parley.engine.activeRuns).toBe(before);
    // The same body typed application/json is served.
    const ok = await fetch(`${rig.server.url}/a2a`, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/json' },
      body: body.replace('"hi"', '"hi [[route:direct]]"'),
    });
    expect(((await ok.json()) as { result?: unknown }).result).toBeDefined();
  });

  it('HTTP+JSON: a text/plain body and a message of file parts only are both 415 CONTENT_TYPE_NOT_SUPPORTED', async () => {
    const post = (type: string, message: unknown) =>
      fetch(`${rig.server.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { ...alice, 'content-type': type },
        body: JSON.stringify({ message }),
      });
    const typed = await post('text/plain', { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] });
    const fileOnly = await post('application/json', {
      messageId: 'm2',
      role: 'ROLE_USER',
      // The TCK's own CORE-SEND-003 sample.
      parts: [{ raw: 'dGNr', mediaType: 'application/x-unsupported-tck-type' }],
    });
    for (const res of [typed, fileOnly]) {
      expect(res.status).toBe(415);
      const reply = (await res.json()) as { error: { code: number; status: string; details: ErrorInfo[] } };
      expect(reply.error).toMatchObject({ code: 415, status: 'INVALID_ARGUMENT' });
      expect(reply.error.details.map((d) => d.reason)).toContain('CONTENT_TYPE_NOT_SUPPORTED');
    }
  });

  it('the SDK clients see ContentTypeNotSupportedError for file parts only, over JSON-RPC and HTTP+JSON', async () => {
    const file = send([
      {
        content: { $case: 'url', value: 'https://example.com/a.pdf' },
        metadata: undefined,
        filename: '',
        mediaType: 'application/pdf',
      },
    ]);
    const clients = [
      await a2aClientAs(rig.server.url, 'key-alice'),
      await a2aClientAs(rig.server.url, 'key-alice', { rest: true }),
    ];
    for (const client of clients)
      await expect(client.sendMessage(file)).rejects.toBeInstanceOf(ContentTypeNotSupportedError);
  });
});

describe('signed agent card (PARLEY_A2A_CARD_SIGNING_KEY; TCK CARD-SIGN-001..003)', () => {
  it('the v1.0 card carries a JWS the SDK verifies with the key at its jku; alg, kid and typ are protected', async () => {
    const card = await new DefaultAgentCardResolver().resolve(rig.server.url);
    expect(card.signatures).toHaveLength(1);
    const header = JSON.parse(Buffer.from(card.signatures[0]!.protected, 'base64url').toString()) as Record<
      string,
      string
    >;
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JOSE', jku: `${rig.server.url}/.well-known/jwks.json` });
    expect(header.kid).toMatch(/^[\w-]{43}$/);
    const jkus: string[] = [];
    await verifier(jkus)(card);
    expect(jkus).toEqual([`${rig.server.url}/.well-known/jwks.json`]);
  });

  it('a changed card no longer verifies', async () => {
    const card = await new DefaultAgentCardResolver().resolve(rig.server.url);
    await expect(verifier()({ ...card, description: 'Something else entirely' })).rejects.toThrow();
    await expect(verifier()({ ...card, skills: [] })).rejects.toThrow();
  });

  it('one signature per card: the body and its ETag stay the same between requests', async () => {
    const get = () => fetch(`${rig.server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const [a, b] = [await get(), await get()];
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect(await a.text()).toBe(await b.text());
    // The v0.3 shape is not signed: a signature covers the v1.0 canonical form.
    const legacy = (await (await fetch(`${rig.server.url}/.well-known/agent-card.json`)).json()) as {
      signatures?: unknown[];
    };
    expect(legacy.signatures ?? []).toEqual([]);
  });

  it('the SDK client verifies the extended card it fetches with its key (getAgentCard with a verifier)', async () => {
    const client = await a2aClientAs(rig.server.url, 'key-alice');
    const extended = await client.getAgentCard(undefined, verifier());
    expect(extended.skills.map((s) => s.id)).toEqual(expect.arrayContaining(EXTENDED_SKILLS.map((s) => s.id)));
  });
});

describe('extended agent card (GetExtendedAgentCard; TCK CARD-EXT-001)', () => {
  it('the public card declares it when keys are set; a caller with a key gets it on all three bindings', async () => {
    const publicCard = await new DefaultAgentCardResolver().resolve(rig.server.url);
    expect(publicCard.capabilities?.extendedAgentCard).toBe(true);
    expect(publicCard.skills.map((s) => s.id)).toEqual(['noter']);
    const wanted = ['noter', ...EXTENDED_SKILLS.map((s) => s.id)];
    for (const client of [
      await a2aClientAs(rig.server.url, 'key-alice'),
      await a2aClientAs(rig.server.url, 'key-alice', { rest: true }),
      await a2aGrpcClientAs(rig.server.url, 'key-alice'),
    ]) {
      const card = await client.getAgentCard();
      expect(
        card.skills.map((s) => s.id),
        client.transport.protocolName,
      ).toEqual(wanted);
      expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toContain('GRPC');
    }
  });

  it('without a key: 401 over HTTP (the public card stays public)', async () => {
    const res = await fetch(`${rig.server.url}/a2a/rest/extendedAgentCard`, { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(401);
    expect((await fetch(`${rig.server.url}/.well-known/agent-card.json`)).status).toBe(200);
  });

  it('auth off: not declared, and GetExtendedAgentCard is UnsupportedOperation (-32004)', async () => {
    const card = await new DefaultAgentCardResolver().resolve(open.server.url);
    expect(card.capabilities?.extendedAgentCard).toBe(false);
    expect(card.signatures ?? []).toEqual([]);
    const res = await fetch(`${open.server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetExtendedAgentCard', params: {} }),
    });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32004);
  });
});

describe('TCK CORE-SEND-002 through the SDK client', () => {
  it('a message to a finished task is UnsupportedOperation (-32004 over JSON-RPC)', async () => {
    const client = await a2aClientAs(rig.server.url, 'key-alice');
    const task = (await client.sendMessage(send([text('finished [[route:direct]]')]))) as { id: string };
    await expect(client.sendMessage(send([text('more')], { taskId: task.id }))).rejects.toMatchObject({
      name: 'UnsupportedOperationError',
    });
  });
});
