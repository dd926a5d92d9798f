/**
 * Containers for the deploy tests (issue 35, test/deploy/): podman with this machine's settings
 * (deploy/ci/containers.conf unless CONTAINERS_CONF says otherwise), the images built once and reused by tag
 * (deploy/ci/build-images.sh rebuilds one only when its inputs changed), and helpers to wait on a container.
 * Where podman is missing, PODMAN_MISSING says so and the suites skip (CI installs it: .ci/run).
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONTAINERS_ENV = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${ROOT}deploy/ci/containers.conf`,
};

/** The images build-images.sh makes. */
export const IMAGES = {
  parley: 'localhost/parley:latest',
  postgres: 'localhost/parley-postgres:latest',
  redis: 'localhost/parley-redis:latest',
  balancer: 'localhost/parley-balancer:latest',
};

/** Building the images from nothing on a loaded 2-core machine: the base ~4 min, Parley's ~7 min, the rest ~3. */
export const IMAGES_TIMEOUT_MS = 20 * 60_000;

const present = (command: string) => spawnSync(command, ['--version'], { env: CONTAINERS_ENV }).status === 0;

/** Why the container tests cannot run here, or undefined when they can. */
export function podmanMissing(tools: ('podman' | 'podman-compose')[] = ['podman']): string | undefined {
  const missing = tools.filter((t) => !present(t));
  if (missing.length === 0 && process.getuid?.() !== 0) return 'skipped: the container tests run as root (as CI does)';
  return missing.length === 0
    ? undefined
    : `skipped: no ${missing.join(' or ')} on PATH; install the Debian packages podman, runc, podman-compose, debootstrap, catatonit and golang-github-containernetworking-plugin-dnsname (CI does: .ci/run)`;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (podman, podman-compose) with the container settings; never throws. */
export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<Ran>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: { ...CONTAINERS_ENV, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (err) => resolve({ code: -1, stdout, stderr: stderr + err.message }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `podman …`, throwing with its stderr when it fails; its stdout, trimmed. */
export async function podman(...args: string[]): Promise<string> {
  const result = await run('podman', args);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** What a container wrote, stdout and stderr (Parley logs to stderr). */
export async function logsOf(container: string): Promise<string> {
  const result = await run('podman', ['logs', container]);
  return result.stdout + result.stderr;
}

/** Builds the images when their inputs changed since they were built (a no-op otherwise). */
export async function ensureImages(): Promise<void> {
  const result = await run(`${ROOT}deploy/ci/build-images.sh`, []);
  process.stdout.write(result.stdout);
  if (result.code !== 0) throw new Error(`deploy/ci/build-images.sh failed: ${result.stdout}${result.stderr}`);
}

/** Polls `check` every 250 ms until it is true; throws with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** True when GET `url` answers 2xx. */
export const answers = async (url: string, headers: Record<string, string> = {}) =>
  (await fetch(url, { headers, signal: AbortSignal.timeout(3000) })).ok;

/** The resident memory of the processes of a container, in MB (podman stats, which reads its cgroup). */
export async function memoryMb(container: string): Promise<number> {
  const out = await podman('stats', '--no-stream', '--format', '{{.MemUsage}}', container);
  // "123.4MB / 25.28GB"
  const [used] = out.split('/');
  const match = /([\d.]+)\s*([kMG]i?B)/.exec(used!.trim());
  if (!match) throw new Error(`podman stats: cannot read ${out}`);
  const scale = { kB: 1 / 1000, kiB: 1 / 1024, MB: 1, MiB: 1, GB: 1000, GiB: 1024 }[match[2]!] ?? 1;
  return Number(match[1]) * scale;
}
