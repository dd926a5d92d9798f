/**
 * `parley serve` as the one Parley service of its data dir (docs/service.md): a fresh service token
 * (0600), the server, then service.json once it listens, so `parley acp` / `parley mcp` / `parley run`
 * / `parley status` find it. `--idle-exit` (what a bridge starts it with) makes it exit after
 * PARLEY_SERVICE_IDLE_EXIT_MS with no client connected. With PARLEY_DATA_DIR=:memory: there is nothing
 * to share: it serves as before, with no service files.
 */
import type { Config } from '../config.ts';
import {
  newServiceToken,
  readLiveService,
  removeServiceRecord,
  servicePaths,
  writeServiceRecord,
} from '../service/files.ts';
import { serviceRoutes, type ServiceStatus } from '../service/routes.ts';
import { VERSION } from '../version.ts';
import { holdYoungGeneration } from '../young-generation.ts';

/** How often the idle check looks at the connection count. */
const IDLE_CHECK_MAX_MS = 1000;

export async function serveService(config: Config, args: string[]): Promise<void> {
  // Before the server's chunks load: serveParley releases it once the start-up ingestion is over.
  holdYoungGeneration();
  const { serveParley } = await import('../server.ts');
  if (config.store.dataDir === ':memory:') {
    await serveParley(config);
    return;
  }
  const paths = servicePaths(config.store.dataDir);
  const running = readLiveService(paths);
  if (running) {
    throw new Error(
      `a Parley service already runs for ${paths.dir} (pid ${running.pid}, ${running.url}): use it, or stop it with \`parley stop\``,
    );
  }
  const idleExitMs = args.includes('--idle-exit') ? config.server.serviceIdleExitMs : 0;
  const token = newServiceToken(paths);
  const startedAt = new Date();
  let status: () => ServiceStatus = () => {
    throw new Error('not listening yet');
  };
  const parley = await serveParley(config, {
    localToken: token,
    routes: [{ path: '/', app: serviceRoutes(token, () => status()) }],
  });
  const { url, port } = parley.address;
  // 0.0.0.0 and :: are where to listen, not where to connect.
  const connectUrl = url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
  status = () => ({
    pid: process.pid,
    url: connectUrl,
    port,
    dataDir: paths.dir,
    version: VERSION,
    startedAt: startedAt.toISOString(),
    uptimeMs: Date.now() - startedAt.getTime(),
    clients: Math.max(0, parley.openConnections() - 1),
    idleExitMs,
    degradedRuns: parley.runStore.degraded(),
    knowledge: knowledgeState(parley.knowledgeReady()),
  });
  writeServiceRecord(paths, {
    pid: process.pid,
    url: connectUrl,
    port,
    startedAt: startedAt.toISOString(),
    version: VERSION,
    idleExitMs,
  });
  process.on('exit', () => removeServiceRecord(paths, process.pid));
  if (config.server.port === 0) {
    parley.logger.info(`PARLEY_PORT is 0: took the free port ${port}; clients find it in ${paths.record}`);
  }
  parley.logger.info(`Parley service for ${paths.dir} (pid ${process.pid}); \`parley status\`, \`parley stop\``);
  if (idleExitMs > 0) exitWhenIdle(parley, idleExitMs);
}

const knowledgeState = (ready: true | string) => (ready === true ? 'ready' : ready);

/** Exits once no connection has been open for `idleMs` (a bridge holds its connection while its window is open). */
function exitWhenIdle(
  parley: { openConnections(): number; close(): Promise<void>; logger: { info(m: string): void } },
  idleMs: number,
): void {
  let idleSince = Date.now();
  const timer = setInterval(
    () => {
      if (parley.openConnections() > 0) {
        idleSince = Date.now();
        return;
      }
      if (Date.now() - idleSince < idleMs) return;
      clearInterval(timer);
      parley.logger.info(
        `no client for ${Math.round(idleMs / 1000)} s (PARLEY_SERVICE_IDLE_EXIT_MS): the service exits; the next \`parley acp\`/\`parley mcp\` starts it again`,
      );
      parley.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    },
    Math.min(IDLE_CHECK_MAX_MS, Math.max(50, Math.floor(idleMs / 4))),
  );
  timer.unref();
}
