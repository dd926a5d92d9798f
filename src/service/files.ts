/**
 * The files through which the stdio bridges find the one Parley service of a data dir (docs/service.md):
 *   <data dir>/service.json   { pid, url, port, startedAt, version, idleExitMs }: written by the service once it listens
 *   <data dir>/service.token  the bearer the bridges send, mode 0600 (only the user can read it)
 *   <data dir>/service.log    the output of a service a bridge started in the background
 * A service.json whose pid is dead is stale (the service was killed): it is ignored and replaced.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const RecordSchema = z.object({
  pid: z.number().int().positive(),
  url: z.url(),
  port: z.number().int().min(1).max(65535),
  startedAt: z.string(),
  version: z.string(),
  /** 0: the service never exits for idleness (one the user started). */
  idleExitMs: z.number().int().nonnegative(),
});
export type ServiceRecord = z.infer<typeof RecordSchema>;

export interface ServicePaths {
  dir: string;
  record: string;
  token: string;
  log: string;
}

/** The service files of a data dir (PARLEY_DATA_DIR, resolved against the working directory). */
export function servicePaths(dataDir: string): ServicePaths {
  const dir = resolve(dataDir);
  return {
    dir,
    record: join(dir, 'service.json'),
    token: join(dir, 'service.token'),
    log: join(dir, 'service.log'),
  };
}

/** Whether a process with this pid exists (EPERM: it does, it is someone else's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A process killed (kill -9) whose parent has not reaped it still answers kill(pid, 0); in a container
 * whose init does not reap orphans it stays so. Linux says so in /proc/<pid>/stat (state Z); elsewhere
 * the service's own answer (cli/service-client.ts probeService) tells.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** Written whole or not at all: readers never see half a file. */
function writeAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  chmodSync(temp, 0o600); // the mode of writeFileSync is filtered by the umask
  renameSync(temp, path);
}

export function writeServiceRecord(paths: ServicePaths, record: ServiceRecord): void {
  mkdirSync(paths.dir, { recursive: true });
  writeAtomic(paths.record, JSON.stringify(record, null, 2) + '\n');
}

/** The service recorded for this data dir, when its process is alive; undefined when none or stale. */
export function readLiveService(paths: ServicePaths): ServiceRecord | undefined {
  const record = readServiceRecord(paths);
  return record && isAlive(record.pid) ? record : undefined;
}

/** service.json as written, whether or not its process still runs (undefined when absent or unreadable). */
export function readServiceRecord(paths: ServicePaths): ServiceRecord | undefined {
  let text: string;
  try {
    text = readFileSync(paths.record, 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = RecordSchema.safeParse(parsed);
  return record.success ? record.data : undefined;
}

/** Removes service.json if it still names `pid` (a newer service may have replaced it). */
export function removeServiceRecord(paths: ServicePaths, pid: number): void {
  try {
    const record = RecordSchema.safeParse(JSON.parse(readFileSync(paths.record, 'utf8')));
    if (record.success && record.data.pid === pid) rmSync(paths.record, { force: true });
  } catch {
    // already gone, or not ours to judge
  }
}

/** A fresh random token in service.token, readable by the user only; each service start makes a new one. */
export function newServiceToken(paths: ServicePaths): string {
  mkdirSync(paths.dir, { recursive: true });
  const token = randomBytes(32).toString('base64url');
  writeAtomic(paths.token, token + '\n');
  return token;
}

export function readServiceToken(paths: ServicePaths): string | undefined {
  try {
    return readFileSync(paths.token, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
