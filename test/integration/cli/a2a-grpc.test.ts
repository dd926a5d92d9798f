/**
 * A2A's gRPC binding and signed card on a real `parley serve` process, configured as a user configures
 * them (PARLEY_A2A_GRPC_PORT, PARLEY_A2A_CARD_SIGNING_KEY as a PEM file, PARLEY_API_KEYS): the SDK client
 * finds gRPC in the signed card, verifies the card, runs a task over gRPC; the task is still there over
 * gRPC after kill -9; a gRPC port that is taken stops start-up with a message naming the setting.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { JWK } from 'jose';
import { TaskState, verifyAgentCardSignature, type Task } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { send, text } from '../../support/protocols/a2a-helpers.ts';
import { a2aGrpcClientAs, newSigningKey } from '../../support/protocols/a2a-server-rig.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const KEY = 'key-grpc-cli';
const { serve, tempDataDir } = useServeProcesses('parley-a2a-grpc', { PARLEY_API_KEYS: KEY });

const grpcOf = (card: { supportedInterfaces: { protocolBinding: string; url: string }[] }) =>
  card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')?.url;

describe('parley serve with PARLEY_A2A_GRPC_PORT and PARLEY_A2A_CARD_SIGNING_KEY', () => {
  it('serves gRPC on 127.0.0.1, announced in a card the SDK verifies; tasks survive kill -9', async () => {
    const dataDir = tempDataDir();
    const keyFile = join(dataDir, 'card-key.pem');
    writeFileSync(keyFile, newSigningKey(), { mode: 0o600 });
    const env = { PARLEY_A2A_GRPC_PORT: '0', PARLEY_A2A_CARD_SIGNING_KEY: keyFile };
    const first = await serve(dataDir, env);
    expect(first.log()).toMatch(/A2A gRPC listening on 127\.0\.0\.1:\d+/);

    const card = await new DefaultAgentCardResolver().resolve(first.url);
    expect(grpcOf(card)).toMatch(/^127\.0\.0\.1:\d+$/);
    await verifyAgentCardSignature(async (kid, jku) => {
      const { keys } = (await (await fetch(jku!)).json()) as { keys: (JWK & { kid: string })[] };
      return keys.find((k) => k.kid === kid)!;
    })(card);

    const client = await a2aGrpcClientAs(first.url, KEY);
    expect(client.transport.protocolName).toBe('GRPC');
    const task = (await client.sendMessage(send([text('over grpc from a real server [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    first.child.kill('SIGKILL');
    await first.exit;
    const second = await serve(dataDir, env);
    const again = await a2aGrpcClientAs(second.url, KEY);
    expect((await again.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
  });

  it('a gRPC port that is taken stops start-up, naming PARLEY_A2A_GRPC_PORT', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      await expect(serve(tempDataDir(), { PARLEY_A2A_GRPC_PORT: String(port) })).rejects.toThrow(
        /PARLEY_A2A_GRPC_PORT/,
      );
    } finally {
      holder.close();
    }
  });

  it('a signing key Parley cannot read stops start-up without quoting it', async () => {
    const secret = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----';
    const failed = serve(tempDataDir(), { PARLEY_A2A_CARD_SIGNING_KEY: secret });
    await expect(failed).rejects.toThrow(/PARLEY_A2A_CARD_SIGNING_KEY is not a PEM private key/);
    await expect(failed).rejects.not.toThrow(/c2VjcmV0/);
  });
});
