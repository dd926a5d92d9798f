/**
 * Where Parley's configuration and data live, resolved once from the environment: the Parley home
 * (PARLEY_HOME, default a per-user folder), and in it `mcp_config.json`, `specialists/`,
 * `prices.json` and `data/`. Never the folder Parley was started in: editors start `parley acp` /
 * `parley mcp` in the user's project, which holds none of these.
 *
 * Precedence per source (docs/configuration.md, "The Parley home"):
 *   1. its environment variable (the CLI's `--home` flag sets PARLEY_HOME before this runs);
 *      a relative value is read from the folder Parley starts in, as any shell path is;
 *   2. the home's copy, when it exists (`parley init` writes editable copies);
 *   3. the shipped default: the package's own file (PACKAGE_ROOT).
 * The data dir is PARLEY_DATA_DIR, else `<home>/data`: one home, one knowledge graph, whichever
 * folder a client starts Parley from.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, posix, resolve, win32 } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';

type Env = Record<string, string | undefined>;

/** Where a path came from, for the start line and `parley init`. */
export type PathOrigin = 'env' | 'home' | 'shipped';

export interface SourcePath {
  /** Absolute. */
  path: string;
  from: PathOrigin;
  /** The variable that names it (also what to set to change it). */
  setting: 'PARLEY_MCP_CONFIG' | 'PARLEY_PRICES_FILE' | 'PARLEY_SKILLS_DIRS';
}

export interface ParleyPaths {
  /** Absolute; need not exist (then every source is the shipped default). */
  home: string;
  homeFrom: 'PARLEY_HOME' | 'default';
  /** Absolute, or ":memory:". */
  dataDir: string;
  dataDirFrom: 'env' | 'home';
  mcpConfig: SourcePath;
  /** One or more folders (PARLEY_SKILLS_DIRS is a comma list); all from the same origin. */
  skillsDirs: SourcePath[];
  prices: SourcePath;
}

/** The names of the home's entries: `parley init` writes these, resolution looks for them. */
export const HOME_ENTRIES = {
  mcpConfig: 'mcp_config.json',
  skills: 'specialists',
  prices: 'prices.json',
  data: 'data',
} as const;

const set = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

/**
 * The per-user default home, by the platform's conventions: `%APPDATA%\Parley` on Windows,
 * `~/Library/Application Support/Parley` on macOS, `$XDG_CONFIG_HOME/parley` (else
 * `~/.config/parley`) elsewhere.
 */
export function defaultHome(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const user = (platform === 'win32' ? set(env, 'USERPROFILE') : undefined) ?? set(env, 'HOME') ?? homedir();
  if (platform === 'win32') {
    const appData = set(env, 'APPDATA');
    return appData ? win32.join(appData, 'Parley') : win32.join(user, 'AppData', 'Roaming', 'Parley');
  }
  if (platform === 'darwin') return posix.join(user, 'Library', 'Application Support', 'Parley');
  const xdg = set(env, 'XDG_CONFIG_HOME');
  // The XDG spec ignores a relative XDG_CONFIG_HOME.
  return xdg && isAbsolute(xdg) ? posix.join(xdg, 'parley') : posix.join(user, '.config', 'parley');
}

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;
const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** The effective home and source paths for `env`; pure but for looking at which files exist. */
export function resolveParleyPaths(env: Env = process.env, cwd: string = process.cwd()): ParleyPaths {
  const homeSetting = set(env, 'PARLEY_HOME');
  const home = resolve(cwd, homeSetting ?? defaultHome(env));
  const inHome = (name: string) => resolve(home, name);
  const shipped = (name: string) => resolve(PACKAGE_ROOT, name);

  const file = (setting: SourcePath['setting'], name: string): SourcePath => {
    const explicit = set(env, setting);
    if (explicit) return { path: resolve(cwd, explicit), from: 'env', setting };
    if (isFile(inHome(name))) return { path: inHome(name), from: 'home', setting };
    return { path: shipped(name), from: 'shipped', setting };
  };

  const skillsSetting = set(env, 'PARLEY_SKILLS_DIRS');
  const listed = (skillsSetting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const skillsFrom: PathOrigin = listed.length > 0 ? 'env' : isDir(inHome(HOME_ENTRIES.skills)) ? 'home' : 'shipped';
  const skillsDirs =
    skillsFrom === 'env'
      ? listed.map((dir) => resolve(cwd, dir))
      : [skillsFrom === 'home' ? inHome(HOME_ENTRIES.skills) : shipped(HOME_ENTRIES.skills)];

  const dataSetting = set(env, 'PARLEY_DATA_DIR');
  return {
    home,
    homeFrom: homeSetting ? 'PARLEY_HOME' : 'default',
    dataDir: dataSetting === ':memory:' ? ':memory:' : resolve(cwd, dataSetting ?? inHome(HOME_ENTRIES.data)),
    dataDirFrom: dataSetting ? 'env' : 'home',
    mcpConfig: file('PARLEY_MCP_CONFIG', HOME_ENTRIES.mcpConfig),
    skillsDirs: skillsDirs.map((path) => ({ path, from: skillsFrom, setting: 'PARLEY_SKILLS_DIRS' })),
    prices: file('PARLEY_PRICES_FILE', HOME_ENTRIES.prices),
  };
}
