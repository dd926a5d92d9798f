/**
 * The whole server as shipped (createParley with the repo's mcp_config.json and specialists) on a
 * fresh temporary data dir, listening on 127.0.0.1: for end-to-end tests that drive it over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { createParley, type Parley, type ParleyOptions } from '../../src/server.ts';
import { NO_HOME } from './home.ts';

/** An mcp_config.json with no servers: for servers whose tests are not about tools (PARLEY_MCP_CONFIG). */
export const EMPTY_MCP_CONFIG = fileURLToPath(new URL('../fixtures/mcp-empty.json', import.meta.url));

export interface ShippedParley {
  parley: Parley;
  url: string;
  dataDir: string;
  /** Closes the server and removes its data dir. */
  close(): Promise<void>;
}

/** Starts it with `env` on top of a free port, the temporary data dir and a silent log (or `options.logger`); `options.now` fixes the engine's clock. */
export async function startShippedParley(
  env: Record<string, string> = {},
  options: Pick<ParleyOptions, 'now' | 'logger'> = {},
): Promise<ShippedParley> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  // NO_HOME: the shipped mcp_config.json, specialists and prices, whatever the developer's own home holds.
  const config = loadConfig({
    PARLEY_HOME: NO_HOME,
    PARLEY_PORT: '0',
    PARLEY_DATA_DIR: dataDir,
    PARLEY_LOG_LEVEL: 'silent',
    ...env,
  });
  const parley = await createParley(config, { logger: silentLogger, telemetry: false, ...options });
  const { url } = await parley.listen();
  return {
    parley,
    url,
    dataDir,
    close: async () => {
      await parley.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A query the scripted model plans as one filesystem step calling write_file (which needs approval) on `file` in the workspace. */
export function writeFileQuery(dataDir: string, file: string, content: string): string {
  const args = JSON.stringify({ path: join(dataDir, 'workspace', file), content });
  return `Write ${file} to the workspace files [[steps:1]] [[tool:filesystem/write_file ${args}]]`;
}
