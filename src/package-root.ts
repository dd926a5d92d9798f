/**
 * The folder holding Parley's package.json, found upward from this module: src/ under tsx, and a
 * chunk of the bundle in dist/, sit at different depths, so no module may count `../` to reach it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${here}`);
  }
}

export const PACKAGE_ROOT: string = findPackageRoot();

export const PACKAGE_JSON = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
