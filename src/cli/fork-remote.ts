/**
 * `parley fork RUN [--from CHECKPOINT]` (docs/time-travel.md): a new run from a checkpoint of RUN, in
 * the Parley service of the data dir (found, or started like `parley acp`/`mcp` do: it holds the runs).
 * Without --from, the run's last checkpoint. The new run is shown live like `parley run`; Ctrl-C cancels it.
 */
import type { Config } from '../config.ts';
import { showServiceRun } from './run-remote.ts';
import { findOrStartService, type ServiceConnection } from './service-client.ts';

export const FORK_USAGE = 'parley fork RUN_ID [--from CHECKPOINT_ID]';

export function parseForkArgs(args: string[]): { runId: string; from?: string } | { error: string } {
  const rest = [...args];
  let from: string | undefined;
  const at = rest.findIndex((a) => a === '--from' || a.startsWith('--from='));
  if (at >= 0) {
    from = rest[at]!.includes('=') ? rest[at]!.slice('--from='.length) : rest[at + 1];
    rest.splice(at, rest[at]!.includes('=') ? 1 : 2);
    if (!from || from.startsWith('--')) return { error: `--from needs a checkpoint id (usage: ${FORK_USAGE})` };
  }
  if (rest.length !== 1 || rest[0]!.startsWith('--')) return { error: `give one run id (usage: ${FORK_USAGE})` };
  return { runId: rest[0]!, ...(from ? { from } : {}) };
}

async function errorOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  return `${res.status}: ${body?.error?.message ?? res.statusText}`;
}

export async function forkCommand(config: Config, args: string[]): Promise<number> {
  const parsed = parseForkArgs(args);
  if ('error' in parsed) {
    process.stderr.write(`parley fork: ${parsed.error}\n`);
    return 2;
  }
  if (config.store.dataDir === ':memory:') {
    process.stderr.write('parley fork: with PARLEY_DATA_DIR=:memory: no run outlives its process: nothing to fork\n');
    return 2;
  }
  let service: ServiceConnection;
  try {
    service = await findOrStartService(config.store.dataDir);
  } catch (err) {
    process.stderr.write(`parley fork: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const headers = { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' };
  const at = (path: string) => new URL(path, service.record.url);
  const runPath = `/api/runs/${encodeURIComponent(parsed.runId)}`;

  let checkpoint = parsed.from;
  if (!checkpoint) {
    const res = await fetch(at(`${runPath}/checkpoints`), { headers });
    if (!res.ok) {
      process.stderr.write(`parley fork: listing the checkpoints of ${parsed.runId} failed (${await errorOf(res)})\n`);
      return 1;
    }
    const { checkpoints } = (await res.json()) as { checkpoints: { id: string; label: string }[] };
    const last = checkpoints.at(-1);
    if (!last) {
      process.stderr.write(`parley fork: run ${parsed.runId} has no checkpoint yet\n`);
      return 1;
    }
    checkpoint = last.id;
    process.stderr.write(`(forking from the last checkpoint, ${last.id}: ${last.label})\n`);
  }
  const res = await fetch(at(`${runPath}/fork`), { method: 'POST', headers, body: JSON.stringify({ checkpoint }) });
  if (res.status !== 201) {
    process.stderr.write(`parley fork: the Parley service refused the fork (${await errorOf(res)})\n`);
    return 1;
  }
  const { runId } = (await res.json()) as { runId: string };
  process.stderr.write(`(run ${runId}, forked from ${parsed.runId} at ${checkpoint})\n`);
  return follow(service, runId);
}

/** The new run's events, rendered like `parley run`; its exit code. */
function follow(service: ServiceConnection, runId: string): Promise<number> {
  return showServiceRun(service, runId, 'parley fork', async () => {
    const res = await fetch(new URL(`/api/runs/${runId}/events`, service.record.url), {
      headers: { Authorization: `Bearer ${service.token}` },
    });
    if (res.ok && res.body) return res.body;
    process.stderr.write(`parley fork: following run ${runId} failed (${await errorOf(res)})\n`);
    return 1;
  });
}
