/** Where Parley's configuration comes from: flag/env, then the home's copy, then the shipped default; and `parley init`'s copies. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { initHome } from '../../../src/home/init.ts';
import { defaultHome, resolveParleyPaths } from '../../../src/home/paths.ts';
import { PACKAGE_ROOT } from '../../../src/package-root.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-home-test-'));
  made.push(dir);
  return dir;
}

describe('defaultHome', () => {
  it('follows each platform’s per-user convention', () => {
    expect(defaultHome({ HOME: '/home/ada' }, 'linux')).toBe('/home/ada/.config/parley');
    expect(defaultHome({ HOME: '/home/ada', XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/parley');
    // The XDG spec ignores a relative XDG_CONFIG_HOME.
    expect(defaultHome({ HOME: '/home/ada', XDG_CONFIG_HOME: 'cfg' }, 'linux')).toBe('/home/ada/.config/parley');
    expect(defaultHome({ HOME: '/Users/ada' }, 'darwin')).toBe('/Users/ada/Library/Application Support/Parley');
    expect(defaultHome({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'win32')).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\Parley',
    );
    expect(defaultHome({ USERPROFILE: 'C:\\Users\\ada' }, 'win32')).toBe('C:\\Users\\ada\\AppData\\Roaming\\Parley');
  });
});

describe('resolveParleyPaths', () => {
  it('with an empty home: every source is the shipped default and data is <home>/data', () => {
    const home = join(tempDir(), 'not-yet');
    const paths = resolveParleyPaths({ PARLEY_HOME: home }, '/somewhere/else');
    expect(paths).toEqual({
      home,
      homeFrom: 'PARLEY_HOME',
      dataDir: join(home, 'data'),
      dataDirFrom: 'home',
      mcpConfig: { path: join(PACKAGE_ROOT, 'mcp_config.json'), from: 'shipped', setting: 'PARLEY_MCP_CONFIG' },
      skillsDirs: [{ path: join(PACKAGE_ROOT, 'specialists'), from: 'shipped', setting: 'PARLEY_SKILLS_DIRS' }],
      prices: { path: join(PACKAGE_ROOT, 'prices.json'), from: 'shipped', setting: 'PARLEY_PRICES_FILE' },
    });
  });

  it('never reads the folder it starts in: a project with its own mcp_config.json and specialists/ changes nothing', () => {
    const project = tempDir();
    writeFileSync(join(project, 'mcp_config.json'), '{"mcpServers":{}}');
    mkdirSync(join(project, 'specialists'));
    const paths = resolveParleyPaths({ PARLEY_HOME: join(tempDir(), 'home') }, project);
    expect(paths.mcpConfig.from).toBe('shipped');
    expect(paths.skillsDirs[0]!.from).toBe('shipped');
  });

  it("the home's copies win over the shipped ones, each on its own", () => {
    const home = tempDir();
    writeFileSync(join(home, 'mcp_config.json'), '{"mcpServers":{}}');
    mkdirSync(join(home, 'specialists'));
    const paths = resolveParleyPaths({ PARLEY_HOME: home }, '/');
    expect(paths.mcpConfig).toMatchObject({ path: join(home, 'mcp_config.json'), from: 'home' });
    expect(paths.skillsDirs).toEqual([
      { path: join(home, 'specialists'), from: 'home', setting: 'PARLEY_SKILLS_DIRS' },
    ]);
    expect(paths.prices).toMatchObject({ path: join(PACKAGE_ROOT, 'prices.json'), from: 'shipped' });
  });

  it('variables win over the home; relative values are read from the folder Parley starts in', () => {
    const home = tempDir();
    writeFileSync(join(home, 'mcp_config.json'), '{"mcpServers":{}}');
    writeFileSync(join(home, 'prices.json'), '{"models":{}}');
    const cwd = tempDir();
    const paths = resolveParleyPaths(
      {
        PARLEY_HOME: home,
        PARLEY_MCP_CONFIG: 'mine.json',
        PARLEY_SKILLS_DIRS: 'a, /abs/b',
        PARLEY_PRICES_FILE: '/etc/prices.json',
        PARLEY_DATA_DIR: 'store',
      },
      cwd,
    );
    expect(paths.mcpConfig).toEqual({ path: join(cwd, 'mine.json'), from: 'env', setting: 'PARLEY_MCP_CONFIG' });
    expect(paths.skillsDirs.map((d) => [d.path, d.from])).toEqual([
      [join(cwd, 'a'), 'env'],
      ['/abs/b', 'env'],
    ]);
    expect(paths.prices).toMatchObject({ path: '/etc/prices.json', from: 'env' });
    expect(paths).toMatchObject({ dataDir: join(cwd, 'store'), dataDirFrom: 'env' });
    expect(resolveParleyPaths({ PARLEY_HOME: home, PARLEY_DATA_DIR: ':memory:' }).dataDir).toBe(':memory:');
  });

  it('a relative PARLEY_HOME is read from the starting folder; unset, the platform default is used', () => {
    const cwd = tempDir();
    expect(resolveParleyPaths({ PARLEY_HOME: 'h' }, cwd).home).toBe(join(cwd, 'h'));
    const fake = tempDir();
    expect(resolveParleyPaths({ HOME: fake, XDG_CONFIG_HOME: '' }, cwd)).toMatchObject({
      home:
        process.platform === 'win32' || process.platform === 'darwin'
          ? expect.any(String)
          : join(fake, '.config', 'parley'),
      homeFrom: 'default',
    });
  });

  it('loadConfig takes its paths from it: the home for what no variable names, the variable as given otherwise', () => {
    const home = tempDir();
    mkdirSync(join(home, 'specialists'));
    const config = loadConfig({ PARLEY_HOME: home, PARLEY_MCP_CONFIG: 'relative.json' });
    expect(config.store.dataDir).toBe(join(home, 'data'));
    expect(config.knowledge).toMatchObject({
      skillsDirs: [join(home, 'specialists')],
      mcpConfigPath: 'relative.json',
    });
    expect(config.model.pricesFile).toBe(join(PACKAGE_ROOT, 'prices.json'));
    expect(config.paths.home).toBe(home);
  });
});

describe('initHome (parley init)', () => {
  it('writes editable copies of every shipped file, then keeps them unless forced', () => {
    const home = join(tempDir(), 'home');
    const first = initHome(home);
    const shippedSpecialists = readdirSync(join(PACKAGE_ROOT, 'specialists')).sort();
    expect(first.kept).toEqual([]);
    expect(first.written).toEqual([
      join(home, 'mcp_config.json'),
      join(home, 'prices.json'),
      ...shippedSpecialists.map((f) => join(home, 'specialists', f)),
    ]);
    expect(readFileSync(join(home, 'prices.json'), 'utf8')).toBe(
      readFileSync(join(PACKAGE_ROOT, 'prices.json'), 'utf8'),
    );
    expect(readdirSync(join(home, 'data'))).toEqual([]);
    // Resolution now finds the copies.
    const paths = resolveParleyPaths({ PARLEY_HOME: home });
    expect([paths.mcpConfig.from, paths.prices.from, paths.skillsDirs[0]!.from]).toEqual(['home', 'home', 'home']);

    // The user's edit survives a second init; a removed file comes back.
    writeFileSync(join(home, 'prices.json'), '{"models":{"mine":{"input":1,"output":2}}}');
    rmSync(join(home, 'specialists', shippedSpecialists[0]!));
    const second = initHome(home);
    expect(second.written).toEqual([join(home, 'specialists', shippedSpecialists[0]!)]);
    expect(second.kept).toContain(join(home, 'prices.json'));
    expect(readFileSync(join(home, 'prices.json'), 'utf8')).toContain('"mine"');

    const forced = initHome(home, { force: true });
    expect(forced.kept).toEqual([]);
    expect(readFileSync(join(home, 'prices.json'), 'utf8')).not.toContain('"mine"');
  });

  it('the copied mcp_config.json still finds the servers Parley ships (${PARLEY_PACKAGE_DIR})', async () => {
    const { loadMcpConfig } = await import('../../../src/tools/mcp-config.ts');
    const home = tempDir();
    initHome(home);
    const config = loadMcpConfig(join(home, 'mcp_config.json'), { PARLEY_DATA_DIR: join(home, 'data') });
    for (const server of config.servers) {
      if (server.transport !== 'stdio') continue;
      expect(server.args[0]).toMatch(
        new RegExp(`^${PACKAGE_ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/node_modules/`),
      );
      expect(readFileSync(server.args[0]!, 'utf8').length).toBeGreaterThan(0);
    }
  });
});
