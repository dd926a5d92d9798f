/**
 * Finding the Parley service of a data dir, or starting it (docs/service.md). A bridge reuses the running
 * one (`npm start`, `parley serve`, another window's); with none it starts `parley serve --idle-exit`
 * detached, its output appended to <data dir>/service.log, and waits for its service.json. Two bridges
 * starting at once agree through service.lock (created exclusively): one starts the service, the other waits.
 */
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  isAlive,
  readServiceRecord,
  readServiceToken,
  removeServiceRecord,
  servicePaths,
  type ServiceRecord,
} from '../service/files.ts';
import type { ServiceStatus } from '../service/routes.ts';

export interface ServiceConnection {
  record: ServiceRecord;
  token: string;
  /** True when this call started the service. */
  started: boolean;
  /** What the service said when it was found (absent when it was too busy to answer in time). */
  status?: ServiceStatus;
}

/** Long enough for a first start: schema creation and the first ingestion of every source. */
const START_TIMEOUT_MS = 120_000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The live service of this data dir with its token, or undefined. A record whose pid looks alive is not
 * trusted on its own: after kill -9 the pid can be a zombie or another program's, so the service is
 * asked (GET /api/service with its token). Nothing listening, or another answer than the recorded pid,
 * means the record is stale: it is removed and the caller starts a new service. A service too busy to
 * answer in time is taken as alive (starting a second one on the same data dir would fail on its lock).
 */
export async function findService(
  dataDir: string,
  onStale?: (record: ServiceRecord) => void,
): Promise<ServiceConnection | undefined> {
  const paths = servicePaths(dataDir);
  const record = readServiceRecord(paths);
  if (!record) return undefined;
  const token = readServiceToken(paths);
  const probed = token && isAlive(record.pid) ? await probeService(record, token) : { state: 'stale' as const };
  if (probed.state === 'stale' || !token) {
    removeServiceRecord(paths, record.pid);
    onStale?.(record);
    return undefined;
  }
  return { record, token, started: false, ...(probed.status ? { status: probed.status } : {}) };
}

const PROBE_TIMEOUT_MS = 5000;

/**
 * What GET /api/service says of a recorded service: alive (with its status), busy, or stale. Asked with
 * node:http, not fetch: a bridge's first fetch loads undici, ~50 ms and ~8 MB of its start (docs/performance.md).
 */
export function probeService(
  record: ServiceRecord,
  token: string,
): Promise<{ state: 'alive' | 'busy' | 'stale'; status?: ServiceStatus }> {
  return new Promise((resolve) => {
    const req = get(
      new URL('/api/service', record.url),
      { headers: { Authorization: `Bearer ${token}` }, timeout: PROBE_TIMEOUT_MS },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.once('error', () => resolve({ state: 'stale' }));
        res.once('end', () => {
          if ((res.statusCode ?? 500) >= 300) return resolve({ state: 'stale' });
          try {
            const status = JSON.parse(body) as ServiceStatus;
            resolve(status.pid === record.pid ? { state: 'alive', status } : { state: 'stale' });
          } catch {
            resolve({ state: 'stale' });
          }
        });
      },
    );
    // Too busy to answer in time is alive; refused or reset is stale.
    req.once('timeout', () => {
      resolve({ state: 'busy' });
      req.destroy();
    });
    req.once('error', () => resolve({ state: 'stale' }));
  });
}

/** Takes the start lock, or says who holds it (a dead holder's lock is taken over). */
function takeStartLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch {
      let holder: number;
      try {
        holder = Number(readFileSync(lock, 'utf8').trim());
      } catch {
        continue; // released meanwhile: try again
      }
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) return false;
      rmSync(lock, { force: true });
    }
  }
  return false;
}

function logTail(path: string, lines = 15): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** The running service, or one started now in the background. Throws when it cannot start, with its log's tail. */
export async function findOrStartService(
  dataDir: string,
  onStale?: (record: ServiceRecord) => void,
): Promise<ServiceConnection> {
  const paths = servicePaths(dataDir);
  const lock = join(paths.dir, 'service.lock');
  mkdirSync(paths.dir, { recursive: true });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const found = await findService(dataDir, onStale);
    if (found) return found;
    if (!takeStartLock(lock)) {
      await sleep(POLL_MS); // another bridge is starting it
      continue;
    }
    try {
      const exited = startInBackground(paths.dir, paths.log);
      while (Date.now() < deadline) {
        const up = await findService(dataDir);
        if (up) return { ...up, started: true };
        const code = exited();
        if (code !== undefined && !(await findService(dataDir))) {
          throw new Error(
            `the Parley service for ${paths.dir} exited (${code}) while starting; its log (${paths.log}) ends:\n${logTail(paths.log)}`,
          );
        }
        await sleep(POLL_MS);
      }
    } finally {
      rmSync(lock, { force: true });
    }
  }
  throw new Error(
    `the Parley service for ${paths.dir} did not start within ${START_TIMEOUT_MS / 1000} s; see ${paths.log}`,
  );
}

/**
 * A launcher the bridge runs with `node -e`: it starts the service detached (its own session and
 * process group, setsid) and exits at once, so the service is nobody's child: an editor that kills its
 * agent's process group or walks its process tree (acpx does) never reaches the service another
 * window shares (issue 31). It prints the service's pid, so the bridge can tell if it dies starting.
 */
const LAUNCHER = `
const { spawn } = require('node:child_process');
const [command, ...args] = JSON.parse(process.argv[1]);
const child = spawn(command, args, { detached: true, stdio: ['ignore', 2, 2] });
process.stdout.write(String(child.pid));
child.unref();
`;

/**
 * `parley serve --idle-exit` in its own session, reparented away from this process (LAUNCHER); the same
 * Node and entry point this process runs (bin/parley.js, or src/cli/main.ts through tsx). A port the user
 * did not choose is none: PARLEY_PORT unset means a free port, which the service logs and writes to
 * service.json. Returns how to ask whether it has exited (undefined while running).
 */
function startInBackground(dataDir: string, logPath: string): () => number | string | undefined {
  const log = openSync(logPath, 'a', 0o600);
  const entry = process.argv[1]!;
  const command = [process.execPath, ...process.execArgv, entry, 'serve', '--idle-exit'];
  const launcher = spawn(process.execPath, ['-e', LAUNCHER, JSON.stringify(command)], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
    env: { ...process.env, PARLEY_DATA_DIR: dataDir, PARLEY_PORT: process.env.PARLEY_PORT || '0' },
  });
  closeSync(log);
  let pid = 0;
  let launchFailed: number | string | undefined;
  launcher.stdout?.on('data', (d: Buffer) => (pid = Number(String(d).trim()) || pid));
  launcher.once('exit', (code, signal) => {
    if (code !== 0) launchFailed = `launcher ${code ?? signal ?? 'unknown'}`;
  });
  launcher.unref();
  return () => launchFailed ?? (pid > 0 && !isAlive(pid) ? 'exited' : undefined);
}
