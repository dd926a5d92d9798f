/**
 * A real Neo4j for tests and the knowledge bench (issue 45): Neo4j's in-process test harness
 * (org.neo4j.test:neo4j-harness from Maven Central) behind the runner in test/neo4j-harness/, started as
 * a child JVM on a free 127.0.0.1 Bolt port with its files in a temporary folder; stop() closes it and
 * removes the folder. Neo4j 2025.01 and later need Java 21, so the JVM is the first JDK ≥ 21 found
 * (NEO4J_JAVA_HOME, JAVA_HOME, /usr/lib/jvm, /opt), not necessarily the default `java`.
 *
 * The runner is built once per version of its sources (`npm run neo4j:harness`, or on first use here)
 * into .cache/neo4j-harness/<hash>/; Maven keeps what it downloaded in ~/.m2, so a second build on the
 * same machine runs offline. Where no JDK 21+ (or, with nothing built yet, no Maven) is found,
 * NEO4J_MISSING says so and the suites skip; CI always has both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = join(ROOT, 'test', 'neo4j-harness');
const CACHE = join(ROOT, '.cache', 'neo4j-harness');
const JAR = 'neo4j-harness-runner.jar';
const MIN_JAVA = 21;

/** The Neo4j version the runner is built against (test/neo4j-harness/pom.xml). */
export const NEO4J_VERSION = /<neo4j\.version>([^<]+)<\/neo4j\.version>/.exec(
  readFileSync(join(SOURCES, 'pom.xml'), 'utf8'),
)![1]!;

/** The major version of the JDK at `home`, or undefined when it has no working `java`. */
function javaMajor(home: string): number | undefined {
  const java = join(home, 'bin', 'java');
  if (!existsSync(java)) return undefined;
  const out = spawnSync(java, ['-version'], { encoding: 'utf8' });
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`);
  if (!match) return undefined;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major; // "1.8.0" is Java 8
}

function candidateHomes(): string[] {
  const listed = (dir: string) => (existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : []);
  return [
    process.env.NEO4J_JAVA_HOME,
    process.env.JAVA_HOME,
    ...listed('/usr/lib/jvm').sort(),
    ...listed('/opt').sort(),
    ...listed('/opt/java').sort(),
  ].filter((home): home is string => !!home);
}

let foundJavaHome: string | null | undefined;

/**
 * A JDK Neo4j runs on: NEO4J_JAVA_HOME when set, else the lowest major ≥ 21 found (21 is the LTS
 * Neo4j's calendar releases were first built for; 25 runs them from 2025.10 on).
 */
export function neo4jJavaHome(): string | undefined {
  if (foundJavaHome !== undefined) return foundJavaHome ?? undefined;
  const homes = candidateHomes()
    .map((home) => ({ home, major: javaMajor(home) }))
    .filter((j): j is { home: string; major: number } => j.major !== undefined && j.major >= MIN_JAVA);
  const pinned = homes.find((j) => j.home === process.env.NEO4J_JAVA_HOME);
  foundJavaHome = (pinned ?? homes.sort((a, b) => a.major - b.major)[0])?.home ?? null;
  return foundJavaHome ?? undefined;
}

/** A hash of everything the runner is built from: a change to any of it makes a new build. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'target') walk(path);
      } else if (entry.name === 'pom.xml' || entry.name.endsWith('.java')) {
        hash.update(relative(SOURCES, path)).update('\0').update(readFileSync(path)).update('\0');
      }
    }
  };
  walk(SOURCES);
  return hash.digest('hex').slice(0, 16);
}

/** Where the built runner of the current sources lives (it may not exist yet). */
export function harnessDir(): string {
  return join(CACHE, sourcesHash());
}

function mavenPresent(): boolean {
  return spawnSync('mvn', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** Why the Neo4j tests cannot run here, or undefined when they can. */
export function neo4jMissing(): string | undefined {
  if (!neo4jJavaHome())
    return `skipped: Neo4j ${NEO4J_VERSION} needs a JDK ${MIN_JAVA}+ and none was found (NEO4J_JAVA_HOME, JAVA_HOME, /usr/lib/jvm, /opt); CI has one`;
  if (!existsSync(join(harnessDir(), JAR)) && !mavenPresent())
    return 'skipped: the Neo4j test harness is not built and Maven (`mvn`) is missing to build it (`npm run neo4j:harness`); CI has it';
  return undefined;
}

/**
 * Builds the runner into .cache/neo4j-harness/<hash>/ unless it is there: Maven offline first (what an
 * earlier build downloaded is in ~/.m2), online when something is missing. Returns the runner jar.
 */
export function ensureHarness(log: (line: string) => void = () => {}): string {
  const dir = harnessDir();
  const jar = join(dir, JAR);
  if (existsSync(jar)) return jar;
  const javaHome = neo4jJavaHome();
  if (!javaHome) throw new Error(neo4jMissing());
  const env = { ...process.env, JAVA_HOME: javaHome };
  // Built aside (two test files may build at once), then renamed: a reader never sees half a folder.
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const mvn = (offline: boolean) =>
    spawnSync(
      'mvn',
      [
        '-B',
        '-q',
        ...(offline ? ['-o'] : []),
        '-f',
        join(SOURCES, 'pom.xml'),
        `-Dharness.build.dir=${staging}`,
        'package',
      ],
      { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
  let build = mvn(true);
  if (build.status === 0) log(`neo4j harness: built offline from ~/.m2 (Neo4j ${NEO4J_VERSION})`);
  else {
    log(`neo4j harness: not everything is in ~/.m2 yet; downloading Neo4j ${NEO4J_VERSION} from Maven Central`);
    build = mvn(false);
  }
  if (build.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`mvn package failed (${build.status}):\n${build.stdout}${build.stderr}`);
  }
  // Only the jar and lib/ are kept: classes/ and Maven's bookkeeping go.
  for (const entry of readdirSync(staging))
    if (entry !== JAR && entry !== 'lib') rmSync(join(staging, entry), { recursive: true, force: true });
  if (existsSync(jar)) rmSync(staging, { recursive: true, force: true });
  else renameSync(staging, dir);
  return jar;
}

export interface TestNeo4j {
  /** bolt://127.0.0.1:PORT */
  uri: string;
  /** Auth is off in the harness: any user and password are accepted. */
  user: string;
  password: string;
  database: string;
  /** What the server says it is, e.g. "2026.08.1 community". */
  version: string;
  /** CPU ms the JVM has spent so far (Linux /proc), for the bench. */
  cpuMs(): number;
  stop(): Promise<void>;
}

export interface StartNeo4jOptions {
  /** The JVM's maximum heap in MB. Default 1024. */
  heapMb?: number;
  /** Neo4j's page cache in MB. Default 128. */
  pageCacheMb?: number;
}

const START_TIMEOUT_MS = 420_000;
const MS_PER_TICK = 10; // USER_HZ is 100 on Linux

/** Starts Neo4j on a free loopback port in a temporary folder; builds the runner first when needed. */
export async function startNeo4j(options: StartNeo4jOptions = {}): Promise<TestNeo4j> {
  const jar = ensureHarness();
  const javaHome = neo4jJavaHome()!;
  const folder = mkdtempSync(join(tmpdir(), 'parley-neo4j-'));
  const port = await freePort();
  const child = spawn(
    join(javaHome, 'bin', 'java'),
    [
      `-Xmx${options.heapMb ?? 1024}m`,
      '-XX:+UseParallelGC',
      '-XX:TieredStopAtLevel=1', // C1 only: a short-lived test server starts faster and compiles less on 2 cores
      '--enable-native-access=ALL-UNNAMED',
      '-jar',
      jar,
      String(port),
      folder,
      String(options.pageCacheMb ?? 128),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-8000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout });
  const started = new Promise<{ uri: string; version: string }>((resolve, reject) => {
    let version = '';
    const timer = setTimeout(
      () => reject(new Error(`Neo4j did not start in ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    lines.on('line', (line) => {
      if (line.startsWith('neo4j-version ')) version = line.slice('neo4j-version '.length);
      if (line.startsWith('neo4j-bolt ')) {
        clearTimeout(timer);
        resolve({ uri: line.slice('neo4j-bolt '.length).trim().replace(/\/$/, ''), version });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`Neo4j exited (${code}) before it started:\n${stderr}`));
    });
  });
  const stop = async () => {
    child.stdin.end(); // the runner closes Neo4j when its input ends
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    if (child.exitCode === null && child.signalCode === null) await exited;
    clearTimeout(killer);
    rmSync(folder, { recursive: true, force: true });
  };
  let info: { uri: string; version: string };
  try {
    info = await started;
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    uri: info.uri,
    user: 'neo4j',
    password: 'harness-has-auth-off',
    database: 'neo4j',
    version: info.version,
    cpuMs: () => {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
    },
    stop,
  };
}
