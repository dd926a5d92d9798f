/**
 * `parley ingest` when the Parley service of this data dir runs (docs/service.md): the service holds
 * the knowledge graph's lock, so instead of failing on it the command asks the service to re-ingest
 * every source (POST /mcp/reload with the service token, the local operator) and prints its report,
 * exactly as an in-process ingest prints it.
 */
import type { IngestReport } from '../knowledge/ingest/ingest.ts';
import type { ServiceConnection } from './service-client.ts';

/** Exit code of an ingest: 1 when a source could not be used (the report says which). */
export const ingestExitCode = (report: IngestReport): number =>
  report.unavailable.length + report.skippedFiles.length + report.unknownServers.length > 0 ? 1 : 0;

export async function ingestRemote(service: ServiceConnection): Promise<number> {
  process.stderr.write(`(ingesting in the Parley service ${service.record.url}, pid ${service.record.pid})\n`);
  const res = await fetch(new URL('/mcp/reload', service.record.url), {
    method: 'POST',
    headers: { Authorization: `Bearer ${service.token}` },
  });
  // A non-JSON body: reported below from the status alone.
  const body = (await res.json().catch(() => undefined)) as
    { report?: IngestReport; error?: { message?: string } } | undefined;
  if (!res.ok || !body?.report) {
    process.stderr.write(
      `parley ingest: the Parley service refused (${res.status}): ${body?.error?.message ?? res.statusText}\n`,
    );
    return 1;
  }
  process.stdout.write(JSON.stringify(body.report, null, 2) + '\n');
  return ingestExitCode(body.report);
}
