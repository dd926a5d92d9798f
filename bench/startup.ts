/**
 * How fast `parley serve` comes up and how much memory it holds idle: `npm run bench:startup`
 *
 * Editors and IDEs spawn Parley as a process, so this measures what they wait for: from spawning
 * `node bin/parley.js serve` (the command `npm start` runs) to the first 200 from GET /health, and
 * the resident set size (VmRSS of the Parley process; the MCP tool servers it spawns are their own
 * processes and listed apart) after it has sat idle for --idle ms. `parley serve` listens first and
 * ingests after (discovering the MCP servers), so "idle" starts once that ingestion has ended (its
 * "N specialists available" line); the time to that line is its own column. Two cases: a fresh data dir (a new
 * empty folder each start: schema creation and first ingestion) and an existing one (the same
 * folder, already ingested). Median, min and max of --runs starts each.
 * Options: --runs 5, --idle 1000 (ms idle before RSS is read), --bin bin/parley.js.
 * The scripted model answers (no model env vars are passed on), telemetry is off (no OTEL_* either).
 * Then the stdio bridges (docs/service.md) as an editor starts them from a project folder: `parley acp`
 * cold (no service yet: it starts one) and with the service up, and `parley mcp` with the service up;
 * from spawn to the answer of `initialize`, and the bridge's RSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { summarize } from './lib/stats.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    idle: { type: 'string', default: '1000' },
    bin: { type: 'string', default: 'bin/parley.js' },
  },
});
const runs = Number(values.runs);
const idleMs = Number(values.idle);
const bin = resolve(ROOT, values.bin);

interface Start {
  ms: number;
  /** Spawn to the end of the start-up ingestion (the roster line). */
  ingestedMs: number;
  rssMb: number;
  childrenRssMb: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An empty Parley home for every process the bench starts: its files fall back to the shipped ones, so
 * the figures do not depend on what the user keeps in their own home (docs/configuration.md).
 */
const HOME = mkdtempSync(join(tmpdir(), 'parley-startup-home-'));

/** The environment minus every model, Parley and OpenTelemetry setting, with the bench's empty home. */
function cleanEnv(dataDir: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_'),
    ),
  );
  return { ...env, PARLEY_HOME: HOME, PARLEY_DATA_DIR: dataDir, PARLEY_PORT: '0', PARLEY_LOG_LEVEL: 'info' };
}

function rssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) : 0;
  } catch {
    return 0;
  }
}

/** Direct and indirect child processes of pid (Linux /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

async function healthy(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      // not accepting yet
    }
    await sleep(5);
  }
  throw new Error('parley serve did not become healthy within 60 s');
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** One start: spawn, wait for the listening line (port 0 picks a free port), then /health. */
async function start(dataDir: string): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: cleanEnv(dataDir),
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let stderr = '';
    const url = await new Promise<string>((found, failed) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = stderr.match(/listening on (http:\/\/\S+)/);
        if (m) found(m[1]!);
      });
      child.once('exit', (code) => failed(new Error(`parley serve exited (${code}) before listening:\n${stderr}`)));
    });
    await healthy(url, Date.now() + 60_000);
    const ms = performance.now() - t0;
    const ingestDeadline = Date.now() + 60_000;
    while (!/\d+ specialists available/.test(stderr)) {
      if (Date.now() > ingestDeadline)
        throw new Error(`parley serve did not finish its ingestion within 60 s:\n${stderr}`);
      await sleep(5);
    }
    const ingestedMs = performance.now() - t0;
    await sleep(idleMs);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`parley serve ended while idle (${child.exitCode ?? child.signalCode}):\n${stderr}`);
    const rssMb = rssKb(child.pid!) / 1024;
    const childrenRssMb = descendants(child.pid!).reduce((sum, pid) => sum + rssKb(pid), 0) / 1024;
    return { ms, ingestedMs, rssMb, childrenRssMb };
  } finally {
    await stop(child);
  }
}

const INITIALIZE = {
  acp: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
  mcp: {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  },
};

interface BridgeStart {
  ms: number;
  /** The bridge's own RSS when it answered, and its peak (VmHWM) by then. */
  rssMb: number;
  peakMb: number;
}

function hwmKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
    return line ? Number(line[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * An editor starting `parley acp` / `parley mcp` in a project folder (docs/service.md): from spawn to the
 * answer of `initialize`, then the bridge's RSS. With the service up this is the bridge alone; cold, it
 * includes starting the service in the background.
 */
async function bridgeStart(kind: 'acp' | 'mcp', dataDir: string, project: string): Promise<BridgeStart> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, kind], {
    // As docs/editors.md launches it: no paths, the home's files (here the shipped ones, the home being empty).
    env: { ...cleanEnv(dataDir), PARLEY_PORT: '', PARLEY_LOG_LEVEL: 'warn' },
    cwd: project,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((answered, failed) => {
      child.stdout!.once('data', () => answered());
      child.once('exit', (code) => failed(new Error(`parley ${kind} exited (${code}) before answering:\n${stderr}`)));
      child.stdin!.write(JSON.stringify(INITIALIZE[kind]) + '\n');
    });
    const ms = performance.now() - t0;
    return { ms, rssMb: rssKb(child.pid!) / 1024, peakMb: hwmKb(child.pid!) / 1024 };
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin!.end();
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    await exited;
  }
}

/** The floor any bridge stands on: `parley --version` (Node's start and the CLI's first module), spawn to exit. */
async function versionStart(): Promise<BridgeStart> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, '--version'], { cwd: ROOT, stdio: 'ignore' });
  await new Promise((done) => child.once('exit', done));
  return { ms: performance.now() - t0, rssMb: 0, peakMb: 0 };
}

/** Stops the service a bridge started in `dataDir` (SIGTERM to the pid in its service.json) and waits for it. */
async function stopService(dataDir: string): Promise<void> {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return;
  }
  process.kill(pid, 'SIGTERM');
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(20);
  }
}

const temp: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-startup-'));
  temp.push(dir);
  return dir;
};

try {
  const before = loadavg();
  const fresh: Start[] = [];
  for (let i = 0; i < runs; i++) fresh.push(await start(newDir()));
  const existingDir = newDir();
  await start(existingDir); // makes it an existing, ingested data dir
  const existing: Start[] = [];
  for (let i = 0; i < runs; i++) existing.push(await start(existingDir));
  // The bridges: each case on an existing (ingested) data dir, from a project folder of their own.
  const project = newDir();
  const bridgeDir = newDir();
  await start(bridgeDir);
  const bridges: Record<string, BridgeStart[]> = {
    'floor: parley --version': [],
    'acp, cold': [],
    'acp, service up': [],
    'mcp, service up': [],
  };
  for (let i = 0; i < runs; i++) bridges['floor: parley --version']!.push(await versionStart());
  for (let i = 0; i < runs; i++) {
    bridges['acp, cold']!.push(await bridgeStart('acp', bridgeDir, project));
    await stopService(bridgeDir);
  }
  await bridgeStart('acp', bridgeDir, project); // starts the service the warm cases reuse
  for (let i = 0; i < runs; i++) bridges['acp, service up']!.push(await bridgeStart('acp', bridgeDir, project));
  for (let i = 0; i < runs; i++) bridges['mcp, service up']!.push(await bridgeStart('mcp', bridgeDir, project));
  await stopService(bridgeDir);
  const after = loadavg();

  const fmt = (n: number, digits = 0) => n.toFixed(digits);
  const row = (name: string, starts: Start[]) => {
    const t = summarize(starts.map((s) => s.ms));
    const i = summarize(starts.map((s) => s.ingestedMs));
    const r = summarize(starts.map((s) => s.rssMb));
    const c = summarize(starts.map((s) => s.childrenRssMb));
    return `| ${name} | ${fmt(t.median)} | ${fmt(t.min)}–${fmt(t.max)} | ${fmt(i.median)} | ${fmt(r.median)} | ${fmt(r.min)}–${fmt(r.max)} | ${fmt(c.median)} |`;
  };
  console.log(
    `parley serve (${values.bin}), ${runs} starts per case, RSS after ${idleMs} ms idle; node ${process.version}`,
  );
  console.log(
    `load average before ${before.map((l) => l.toFixed(2)).join(' ')}, after ${after.map((l) => l.toFixed(2)).join(' ')}\n`,
  );
  console.log(
    '| data dir | to /health ms (median) | min–max | to ingestion end ms (median) | idle RSS MB (median) | min–max | tool servers RSS MB |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  console.log(row('fresh', fresh));
  console.log(row('existing', existing));
  console.log('\n| bridge | to initialize answer ms (median) | min–max | bridge RSS MB (median) | peak RSS MB (max) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, starts] of Object.entries(bridges)) {
    const t = summarize(starts.map((s) => s.ms));
    const r = summarize(starts.map((s) => s.rssMb));
    const peak = Math.max(...starts.map((s) => s.peakMb));
    console.log(`| ${name} | ${fmt(t.median)} | ${fmt(t.min)}–${fmt(t.max)} | ${fmt(r.median)} | ${fmt(peak)} |`);
  }
} finally {
  for (const dir of [...temp, HOME]) rmSync(dir, { recursive: true, force: true });
}
