/**
 * A real Postgres for tests (issue 17): Debian's binaries (`postgresql`, /usr/lib/postgresql/<v>/bin),
 * a cluster made with initdb in a temporary folder, started with pg_ctl on a free 127.0.0.1 port
 * (fsync off: a test cluster need not survive a power loss), stopped and removed by stop(). initdb
 * refuses to run as root, so as root the cluster belongs to the `postgres` user the package creates.
 * Where the binaries are missing, `postgresBinDir()` is undefined and the suites skip with a line
 * saying so (CI installs them: .ci/run).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

export const POSTGRES_MISSING =
  'skipped: no Postgres server binaries (/usr/lib/postgresql/<version>/bin); install the Debian package `postgresql` (CI does)';

export interface TestPostgres {
  /** postgres://… of the server's `postgres` database. */
  url: string;
  /** The URL of another database on the same server. */
  urlOf(database: string): string;
  /**
   * `pg_ctl restart -m fast` (what an operator's restart does): every connection is dropped, the
   * server refuses new ones until it is back; resolves once it accepts them again.
   */
  restart(): Promise<void>;
  /**
   * CPU ms the server has spent so far (Linux /proc): the postmaster, its live children (backends,
   * WAL writer, checkpointer…) and the children it has reaped. The bench reports it beside the client's
   * own CPU, which process.cpuUsage cannot see.
   */
  cpuMs(): number;
  stop(): Promise<void>;
}

const MS_PER_TICK = 10; // USER_HZ is 100 on Linux

/** utime + stime (+ cutime + cstime: reaped children) of a process, and its parent's pid. */
function procCpu(pid: string): { ppid: string; ownTicks: number; reapedTicks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: fields[1]!,
      ownTicks: Number(fields[11]) + Number(fields[12]),
      reapedTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined; // gone between readdir and read
  }
}

function serverCpuMs(data: string): number {
  const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  const own = procCpu(postmaster);
  if (!own) return Number.NaN;
  let ticks = own.ownTicks + own.reapedTicks;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const child = procCpu(pid);
    if (child?.ppid === postmaster) ticks += child.ownTicks + child.reapedTicks;
  }
  return ticks * MS_PER_TICK;
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const root = mkdtempSync(join(tmpdir(), 'parley-pg-'));
  const data = join(root, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(root, Number(ids), Number(gid));
    chmodSync(root, 0o700);
  }
  const command = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args];
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = command(cmd, args);
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${cmd} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '60', 'start']);
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url: urlOf('postgres'),
    urlOf,
    async restart() {
      // Not spawnSync: the test's own clients must keep running while the server goes down and up.
      const [file, argv] = command('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'restart']);
      const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      if (code !== 0) throw new Error(`pg_ctl restart failed (${code}): ${stderr}`);
    },
    cpuMs: () => serverCpuMs(data),
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
