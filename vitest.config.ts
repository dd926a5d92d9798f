import { defineConfig } from 'vitest/config';
import { NO_HOME } from './test/support/home.ts';
import LongestFirst from './test/support/longest-first.ts';

// `npm run test:timing`: per-file wall, import, tests and CPU into test-results/timing.json (docs/testing.md).
const timing = Boolean(process.env.PARLEY_TEST_TIMING);

/**
 * Files that register OpenTelemetry's process-wide providers (the API keeps the first one it is given): each
 * needs a process of its own, so they run in the `telemetry` project, which keeps vitest's isolation.
 */
const OTEL_GLOBALS = [
  'test/integration/graph/telemetry.test.ts',
  'test/integration/llm/telemetry.test.ts',
  'test/integration/server/trace-context.test.ts',
  'test/integration/tools/trace-context.test.ts',
];

/** The files that run a contract suite (a new store or cluster backend's file joins by living in these folders). */
const CONTRACT = [
  'test/integration/store/**/*.test.ts',
  'test/integration/cluster/**/*.test.ts',
  'test/integration/knowledge/kuzu.test.ts',
  'test/integration/knowledge/neo4j.test.ts',
];

/**
 * One run, five projects (docs/testing.md): `npm test` runs them all; `npm run test:unit` (the fast loop)
 * and `npm run test:<project>` run one. The projects inherit the settings below (`extends: true`).
 */
export default defineConfig({
  test: {
    environment: 'node',
    // Never the developer's own Parley home (test/support/home.ts). Every scripted model refuses and
    // records a prompt with an unrendered placeholder; the setup file fails the test that sent it.
    env: { PARLEY_HOME: NO_HOME, PARLEY_SCRIPTED_PROMPT_CHECK: '1' },
    setupFiles: ['test/support/prompt-check.ts', ...(timing ? ['test/support/timing-cpu.ts'] : [])],
    ...(timing ? { reporters: ['default', './test/support/timing-reporter.ts'] } : {}),
    // Longest files first, a shared-worker project's files together (test/support/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Three files at a time on CI's two cores: the suite waits more than it computes (processes starting,
    // containers, a JVM, timers: vitest's tree used 1.3 of the 2 cores with three workers), so a third worker
    // fills the waits. 2 workers: ~11 min; 3, with the longest files first: 8 min (docs/testing.md).
    maxWorkers: 3,
    // `isolate: false` (unit, contract, integration): a project's files run one after another in the same worker
    // process, sharing its module cache, instead of a fresh process that imports src/ and the SDKs again for each
    // file (about 2 s of CPU a file; test/integration/graph/: 103 s -> 46 s of CPU, docs/testing.md "Where the time
    // goes"). So such a file must leave no global state behind (environment variables, globals, fake timers,
    // mocks, servers left open). cli, e2e and deploy keep a fresh process per file: their cost is the processes
    // they launch, not imports.
    projects: [
      // Pure functions and single modules: no server, no child process, no network.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      // The shared suites every backend runs (test/integration/**/*.contract.ts) on each backend: the stores on LMDB,
      // memory and a real Postgres, the cluster in process and on a real Redis, the knowledge store on Kuzu (and Neo4j).
      { extends: true, test: { name: 'contract', include: CONTRACT, isolate: false } },
      // Real pieces over HTTP on 127.0.0.1 (the engine, the store, the protocol adapters, the server).
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          isolate: false,
          exclude: ['test/integration/cli/**', ...CONTRACT, ...OTEL_GLOBALS],
        },
      },
      // Integration files that set OpenTelemetry's global providers, one fresh process each (OTEL_GLOBALS).
      { extends: true, test: { name: 'telemetry', include: OTEL_GLOBALS } },
      // Launches bin/parley.js, which runs the compiled dist/ (built first when stale: test/support/build.ts).
      {
        extends: true,
        test: {
          name: 'cli',
          include: ['test/integration/cli/**/*.test.ts'],
          globalSetup: ['test/support/build-once.ts'],
        },
      },
      // The whole server as shipped (repo mcp_config.json and specialists) on a temporary data dir.
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/support/build-once.ts'] },
      },
      // The container image, the compose stack and the Kubernetes manifests under podman (deploy/, docs/deployment.md);
      // skipped with a line where podman is missing. The images are built once and reused by tag (deploy/ci/build-images.sh).
      { extends: true, test: { name: 'deploy', include: ['test/deploy/**/*.test.ts'] } },
    ],
  },
});
