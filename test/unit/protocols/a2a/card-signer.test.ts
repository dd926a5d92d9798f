/**
 * PARLEY_A2A_CARD_SIGNING_KEY: which keys sign with which algorithm, a key given as a file path, and a
 * key Parley cannot use stopping start-up with a ConfigError that names the setting, never the value.
 * Each signature is checked with the SDK's own verifier against the JWKS the signer publishes.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { ConfigError } from '../../../../src/config-error.ts';
import { buildAgentCard } from '../../../../src/protocols/a2a/card.ts';
import { cardSigner } from '../../../../src/protocols/a2a/card-signer.ts';

const pem = (type: 'ec' | 'ed25519' | 'rsa' | 'x25519', namedCurve?: string) =>
  (
    generateKeyPairSync(type as 'ec', { namedCurve: namedCurve ?? 'P-256', modulusLength: 2048 } as never)
      .privateKey as unknown as { export(o: object): string | Buffer }
  )
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

const card = buildAgentCard({ version: '1.0.0', bearerAuth: false });

describe('cardSigner', () => {
  it.each([
    ['EC P-256', pem('ec', 'P-256'), 'ES256'],
    ['EC P-384', pem('ec', 'P-384'), 'ES384'],
    ['Ed25519', pem('ed25519'), 'EdDSA'],
    ['RSA', pem('rsa'), 'RS256'],
  ])('%s signs with %s and the card verifies against its JWKS', async (_name, key, alg) => {
    const signer = await cardSigner(key);
    const signed = await signer.sign(card, 'https://parley.example.com/');
    const header = JSON.parse(Buffer.from(signed.signatures[0]!.protected, 'base64url').toString()) as Record<
      string,
      string
    >;
    expect(header).toMatchObject({ alg, typ: 'JOSE', jku: 'https://parley.example.com/.well-known/jwks.json' });
    expect(signer.jwks.keys[0]).toMatchObject({ kid: header.kid, alg, use: 'sig' });
    expect(JSON.stringify(signer.jwks)).not.toMatch(/"d":/); // the public half only
    await verifyAgentCardSignature(async (kid) => signer.jwks.keys.find((k) => k.kid === kid)!)(signed);
  });

  it('reads the key from a file path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-card-key-'));
    const file = join(dir, 'card.pem');
    writeFileSync(file, pem('ed25519'));
    expect((await cardSigner(file)).jwks.keys[0]!.alg).toBe('EdDSA');
  });

  it('refuses what it cannot use, naming the setting and never the value', async () => {
    const secret = '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----';
    const refusals = [
      cardSigner(secret),
      cardSigner('/no/such/card.pem'),
      cardSigner(pem('x25519')),
      cardSigner(pem('ec', 'secp256k1')),
    ];
    for (const refusal of refusals) {
      const err = await refusal.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^PARLEY_A2A_CARD_SIGNING_KEY/);
      expect((err as Error).message).not.toContain('bm90IGEga2V5');
    }
  });
});
