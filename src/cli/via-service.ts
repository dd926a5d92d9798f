/**
 * Which commands go through the Parley service of the data dir (docs/service.md): `parley acp` and
 * `parley mcp` always (they find it or start it), `parley run` and `parley ingest` when it runs. With PARLEY_DATA_DIR=:memory:
 * nothing is shared, so they run in this process as before (undefined: the caller does it in-process).
 */
import type { Config } from '../config.ts';
import { findOrStartService, findService } from './service-client.ts';

export async function viaService(
  config: Config,
  command: 'acp' | 'mcp' | 'run' | 'ingest',
  question: string,
): Promise<number | undefined> {
  const dataDir = config.store.dataDir;
  if (dataDir === ':memory:') return undefined;
  if (command === 'run' || command === 'ingest') {
    const service = await findService(dataDir);
    if (!service) return undefined;
    if (command === 'ingest') return (await import('./ingest-remote.ts')).ingestRemote(service);
    const { runRemote } = await import('./run-remote.ts');
    return runRemote(service, question);
  }
  const bridge =
    command === 'acp'
      ? await (await import('./bridge-acp.ts')).loadAcpBridge()
      : await (await import('./bridge-mcp.ts')).loadMcpBridge();
  let service;
  try {
    service = await findOrStartService(dataDir, (stale) =>
      process.stderr.write(
        `parley ${command}: the service recorded in service.json (pid ${stale.pid}, ${stale.url}) no longer answers (killed or crashed); starting a new one\n`,
      ),
    );
  } catch (err) {
    process.stderr.write(`parley ${command}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  if (service.started) {
    process.stderr.write(
      `parley ${command}: started the Parley service for ${dataDir} (pid ${service.record.pid}, ${service.record.url}); its log: service.log in the data dir\n`,
    );
  }
  return bridge(service);
}
