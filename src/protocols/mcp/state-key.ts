/**
 * The key that signs MCP 2026-07-28 `requestState` (the SDK's HMAC-SHA256 codec, rounds.ts). Every
 * replica that may receive a retried round needs the same key:
 *   PARLEY_MCP_STATE_SECRET set   that secret (the operator shares it across replicas)
 *   one process                   a random key made at start (a restart invalidates open rounds)
 *   replicas, no secret           one random key shared through the cluster (Redis): the first replica
 *                                 that needs it writes it, the others read it
 * A state signed with a key no replica holds any more (Redis lost it) is refused like a tampered one;
 * the run's approvals stay answerable through the `approve` tool or POST /api/approve.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster } from '../../cluster/types.ts';

export type StateKeySource = () => Promise<Uint8Array | string>;

const SHARED_KEY = 'parley:mcp:request-state-key';
/** Long: every replica reads the key once a re-read period; a lost key is made anew (rounds signed before fail). */
const SHARED_KEY_TTL_MS = 30 * 24 * 3600_000;
const REREAD_MS = 10 * 60_000;
const WRITER_CLAIM_MS = 5_000;
const WAIT_FOR_WRITER_MS = 100;
const MAX_TRIES = 50;

let processKey: Uint8Array | undefined;

export function stateKeySource(secret: string | undefined, cluster: Cluster | undefined): StateKeySource {
  if (secret) return () => Promise.resolve(secret);
  if (!cluster?.shared) return () => Promise.resolve((processKey ??= randomBytes(32)));
  let cached: { key: Uint8Array; at: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < REREAD_MS) return cached.key;
    cached = { key: await sharedKey(cluster), at: Date.now() };
    return cached.key;
  };
}

async function sharedKey(cluster: Cluster): Promise<Uint8Array> {
  for (let i = 0; i < MAX_TRIES; i++) {
    const found = await cluster.getValue(SHARED_KEY);
    if (found) return Buffer.from(found, 'base64url');
    if (await cluster.claim(`${SHARED_KEY}:writer`, WRITER_CLAIM_MS)) {
      const key = randomBytes(32);
      await cluster.setValue(SHARED_KEY, key.toString('base64url'), SHARED_KEY_TTL_MS);
      return key;
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_FOR_WRITER_MS));
  }
  throw new Error('no MCP requestState key in the cluster: another replica claimed writing it and did not');
}
