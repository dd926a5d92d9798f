/**
 * `parley init`: editable copies of the shipped configuration in the Parley home — mcp_config.json,
 * specialists/ (file by file) and prices.json — plus an empty data/. A file that is already there is
 * kept unless `force`: the user's edits are never overwritten silently. Each copy is used instead of
 * the shipped one from the next start (src/home/paths.ts).
 */
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';
import { HOME_ENTRIES } from './paths.ts';

export interface InitResult {
  home: string;
  /** Absolute paths written. */
  written: string[];
  /** Absolute paths already there and left alone. */
  kept: string[];
}

/** Every file under `dir`, relative to it, in name order. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) =>
      entry.isDirectory()
        ? filesUnder(join(dir, entry.name)).map((f) => join(entry.name, f))
        : entry.isFile()
          ? [entry.name]
          : [],
    );
}

export function initHome(home: string, options: { force?: boolean; from?: string } = {}): InitResult {
  const from = options.from ?? PACKAGE_ROOT;
  const result: InitResult = { home: resolve(home), written: [], kept: [] };
  const shipped = [
    HOME_ENTRIES.mcpConfig,
    HOME_ENTRIES.prices,
    ...filesUnder(join(from, HOME_ENTRIES.skills)).map((f) => join(HOME_ENTRIES.skills, f)),
  ];
  for (const name of shipped) {
    const source = join(from, name);
    const target = join(result.home, name);
    // A home that is the package itself (PARLEY_HOME pointing at the checkout) has nothing to copy.
    if (relative(source, target) === '') continue;
    if (statSync(target, { throwIfNoEntry: false }) && !options.force) {
      result.kept.push(target);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(source, target);
    result.written.push(target);
  }
  mkdirSync(join(result.home, HOME_ENTRIES.data), { recursive: true });
  return result;
}
