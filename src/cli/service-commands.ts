/**
 * `parley status` and `parley stop`: the Parley service of this data dir (docs/service.md).
 * status asks the service itself (GET /api/service with the service token); stop sends it SIGTERM,
 * the graceful shutdown `parley serve` does on Ctrl-C, once the service has confirmed its pid
 * (a pid in a stale file may belong to another program by now).
 */
import { isAlive } from '../service/files.ts';
import type { ServiceRecord } from '../service/files.ts';
import { findService } from './service-client.ts';

const STOP_WAIT_MS = 30_000;

const seconds = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
};

/** Prints the service's state; exit code 0 when it runs, 3 when none does (as `systemctl status`). */
export async function statusCommand(dataDir: string, json: boolean): Promise<number> {
  let stale: ServiceRecord | undefined;
  const service = await findService(dataDir, (record) => (stale = record));
  const status = service?.status;
  if (json) {
    const staleRecord = stale ? { staleRecord: { pid: stale.pid, url: stale.url } } : {};
    const busy = service && !status ? { running: true, busy: true, pid: service.record.pid } : undefined;
    process.stdout.write(
      JSON.stringify(status ? { running: true, ...status } : (busy ?? { running: false, ...staleRecord })) + '\n',
    );
    return service ? 0 : 3;
  }
  if (service && !status) {
    process.stdout.write(
      `Parley service: running (pid ${service.record.pid}, ${service.record.url}) but too busy to answer in time.\n`,
    );
    return 0;
  }
  if (!status) {
    const why = stale
      ? ` (stale record of pid ${stale.pid} removed: nothing answers at ${stale.url}; it was killed or crashed)`
      : '';
    process.stdout.write(`No Parley service runs for ${dataDir}: not running${why}.\n`);
    return 3;
  }
  const idle = status.idleExitMs > 0 ? `exits after ${seconds(status.idleExitMs)} with no client` : 'never idles out';
  process.stdout.write(
    [
      `Parley ${status.version} service: running`,
      `  pid      ${status.pid}`,
      `  url      ${status.url} (port ${status.port})`,
      `  data     ${status.dataDir}`,
      `  uptime   ${seconds(status.uptimeMs)} (since ${status.startedAt})`,
      `  clients  ${status.clients} (${idle})`,
      ...(status.knowledge ? [`  registry ${status.knowledge}`] : []),
      ...degradedLines(status.degradedRuns ?? []),
    ].join('\n') + '\n',
  );
  return 0;
}

/** Runs whose store writes fail (docs/durability.md, "When the store fails"): said, never hidden. */
function degradedLines(runs: readonly { runId: string; what: string; error: string; since: string }[]): string[] {
  if (runs.length === 0) return [`  store    every run stored`];
  return [
    `  store    DEGRADED: ${runs.length} run(s) not fully stored (writes still retried; see the service log)`,
    ...runs.slice(0, 10).map((r) => `           ${r.runId}: ${r.what} failing since ${r.since}: ${r.error}`),
  ];
}

export async function stopCommand(dataDir: string): Promise<number> {
  const service = await findService(dataDir);
  const status = service?.status;
  if (!status) {
    process.stdout.write(`No Parley service runs for ${dataDir}.\n`);
    return 0;
  }
  process.kill(status.pid, 'SIGTERM');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(status.pid)) {
    if (Date.now() > deadline) {
      process.stderr.write(`parley stop: pid ${status.pid} is still shutting down after ${STOP_WAIT_MS / 1000} s\n`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  process.stdout.write(`Stopped the Parley service (pid ${status.pid}).\n`);
  return 0;
}
