/**
 * Signed agent cards (A2A 1.0 §8.4, AgentCardSignature) with PARLEY_A2A_CARD_SIGNING_KEY: the SDK's
 * `generateAgentCardSignature` does the JWS over the card's JCS canonical form; this file reads the key,
 * picks the algorithm its type asks for, names it by its JWK thumbprint (RFC 7638, the `kid`) and
 * keeps the public half as a JWKS for `/.well-known/jwks.json` (the `jku` of each signature).
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { generateAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import { ConfigError } from '../../config-error.ts';

/** Where the public key is served, relative to the card's origin. */
export const JWKS_PATH = '/.well-known/jwks.json';

export interface CardSigner {
  /** The card with one signature added; `origin` gives the `jku` (the card's origin, as the card's URLs). */
  sign(card: AgentCard, origin: string): Promise<AgentCard>;
  /** The public key, for JWKS_PATH. */
  jwks: { keys: JWK[] };
}

function algorithmOf(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'rsa') return 'RS256';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
  }
  throw new ConfigError(
    `PARLEY_A2A_CARD_SIGNING_KEY is a ${type ?? 'unknown'} key Parley does not sign with: use EC P-256, EC P-384, Ed25519 or RSA.`,
  );
}

function readKey(setting: string): KeyObject {
  let pem = setting;
  if (!setting.trimStart().startsWith('-----BEGIN')) {
    try {
      pem = readFileSync(setting, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `PARLEY_A2A_CARD_SIGNING_KEY: cannot read the key file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
  try {
    return createPrivateKey(pem);
  } catch {
    // The value may be a secret: name the setting, never quote it.
    throw new ConfigError('PARLEY_A2A_CARD_SIGNING_KEY is not a PEM private key (PKCS#8, SEC1 or PKCS#1).');
  }
}

/** The signer for a key setting (a PEM, or the path of one); a key it cannot use is a ConfigError. */
export async function cardSigner(setting: string): Promise<CardSigner> {
  const key = readKey(setting);
  const alg = algorithmOf(key);
  const jwk = createPublicKey(key).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(jwk);
  return {
    jwks: { keys: [{ ...jwk, kid, alg, use: 'sig' }] },
    sign: (card, origin) =>
      generateAgentCardSignature(key, { alg, kid, typ: 'JOSE', jku: `${origin.replace(/\/+$/, '')}${JWKS_PATH}` })(
        card,
      ),
  };
}
