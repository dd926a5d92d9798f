/**
 * The local service token (docs/service.md, docs/security.md) over real HTTP: it is the local caller
 * when API keys are on, it opens nothing when auth is off that was not open before, and
 * GET /api/service answers it alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/log.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { serviceRoutes } from '../../../src/service/routes.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';

const TOKEN = 'local-service-token-for-tests';
const open: Parley[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function start(env: Record<string, string>): Promise<string> {
  const config = loadConfig({
    PARLEY_PORT: '0',
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
    PARLEY_LOG_LEVEL: 'silent',
    ...env,
  });
  const status = () => ({
    pid: process.pid,
    url: 'http://127.0.0.1',
    port: 1,
    dataDir: '/tmp',
    version: '0',
    startedAt: new Date(0).toISOString(),
    uptimeMs: 0,
    clients: 0,
    idleExitMs: 0,
  });
  const parley = await createParley(config, {
    logger: silentLogger,
    telemetry: false,
    localToken: TOKEN,
    routes: [{ path: '/', app: serviceRoutes(TOKEN, status) }],
  });
  open.push(parley);
  return (await parley.listen()).url;
}

const get = (url: string, path: string, bearer?: string) =>
  fetch(url + path, bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {});

describe('the local service token', () => {
  it('with API keys on, the token is accepted as the local caller; a wrong token or none gets 401', async () => {
    const url = await start({ PARLEY_API_KEYS: 'team-key' });
    expect((await get(url, '/api/runs', TOKEN)).status).toBe(200);
    expect((await get(url, '/api/runs', 'team-key')).status).toBe(200);
    const wrong = await get(url, '/api/runs', 'wrong-token');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { code: 'unauthorized', message: 'Invalid API key.' } });
    expect((await get(url, '/api/runs')).status).toBe(401);
    // The local caller is the operator of its own machine, as `parley acp` in-process is.
    expect((await get(url, '/mcp/config', TOKEN)).status).toBe(200);
    expect((await get(url, '/mcp/config', 'team-key')).status).toBe(403);
  });

  it('GET /api/service answers the token only: not an API key, not a wrong token, not an open server', async () => {
    const keyed = await start({ PARLEY_API_KEYS: 'team-key' });
    expect((await get(keyed, '/api/service', TOKEN)).status).toBe(200);
    expect((await get(keyed, '/api/service', 'team-key')).status).toBe(401);
    const openUrl = await start({});
    const res = await get(openUrl, '/api/service', 'wrong-token');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await get(openUrl, '/api/service')).status).toBe(401);
    expect(await (await get(openUrl, '/api/service', TOKEN)).json()).toMatchObject({ pid: process.pid });
    // With auth off everything else stays as open as before, token or not.
    expect((await get(openUrl, '/api/runs')).status).toBe(200);
  });
});
