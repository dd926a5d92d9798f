/**
 * The lines Parley says at start about where its configuration comes from: one line naming the home
 * and every source with its origin, and a warning for each source that cannot be what the user meant
 * (a folder named by a variable that does not exist, data left behind in the old place). Files that
 * are missing or unreadable where start-up cannot go on are errors elsewhere (loadMcpConfig,
 * loadPriceCatalog); these are the cases where Parley runs, but with less than the user expects.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';
import type { ParleyPaths, SourcePath } from './paths.ts';

const ORIGIN: Record<SourcePath['from'], string> = {
  env: 'from',
  home: 'in the home',
  shipped: 'shipped',
};

const describe = (s: SourcePath) => `${s.path} (${s.from === 'env' ? `${ORIGIN.env} ${s.setting}` : ORIGIN[s.from]})`;

/** One line: the home, the data dir and each source with where it came from. */
export function describePaths(paths: ParleyPaths): string {
  const home = `${paths.home} (${paths.homeFrom === 'PARLEY_HOME' ? 'PARLEY_HOME' : 'default; set PARLEY_HOME to move it'})`;
  const data = `${paths.dataDir}${paths.dataDirFrom === 'env' ? ' (from PARLEY_DATA_DIR)' : ''}`;
  const shipped = [paths.mcpConfig, paths.prices, ...paths.skillsDirs].some((s) => s.from === 'shipped');
  return (
    `Parley home ${home}; data ${data}; MCP servers ${describe(paths.mcpConfig)}; ` +
    `specialists ${paths.skillsDirs.map(describe).join(', ')}; prices ${describe(paths.prices)}` +
    (shipped ? '. `parley init` copies the shipped files into the home to edit them.' : '')
  );
}

const exists = (path: string) => statSync(path, { throwIfNoEntry: false }) !== undefined;

/** What is wrong but not fatal, each a sentence that says which path and what to do. */
export function pathWarnings(paths: ParleyPaths): string[] {
  const warnings: string[] = [];
  for (const dir of paths.skillsDirs) {
    if (!exists(dir.path))
      warnings.push(
        `The specialists folder ${dir.path} (from PARLEY_SKILLS_DIRS) does not exist: no specialists come from it. ` +
          'Fix PARLEY_SKILLS_DIRS (a relative path is read from the folder Parley starts in), or unset it to use the ' +
          "home's specialists/ or the shipped ones.",
      );
  }
  const oldData = join(PACKAGE_ROOT, 'data');
  if (paths.dataDirFrom === 'home' && paths.dataDir !== oldData && exists(join(oldData, 'knowledge.kuzu')))
    warnings.push(
      `${oldData} holds a knowledge graph from before the Parley home; this Parley uses ${paths.dataDir}. ` +
        `Move its contents there, or set PARLEY_DATA_DIR=${oldData} to keep using it.`,
    );
  return warnings;
}
