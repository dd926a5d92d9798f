import { openKv } from '../../../src/store/kv.ts';
import { createLmdbAcpSessionStore } from '../../../src/store/acp-sessions/lmdb.ts';
import { acpSessionStoreContract } from './acp-sessions.contract.ts';

acpSessionStoreContract('lmdb', async (retention, now) => {
  const kv = openKv(':memory:');
  return { store: createLmdbAcpSessionStore(kv, retention, now), close: () => kv.close() };
});
