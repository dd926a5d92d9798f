/** Where a tool's `path` argument points, and whether that is inside the project folder. */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/** `path` relative to the project root, or absolute. */
export function resolvePath(root: string, path: string): string {
  return resolve(root, path);
}

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * On disk, a symbolic link inside the folder may lead out of it: both sides are compared after
 * resolving links (of the nearest existing ancestor, for a file still to be created).
 */
export async function isInsideOnDisk(root: string, path: string): Promise<boolean> {
  return isInside(await realExisting(root), await realExisting(path));
}

async function realExisting(path: string): Promise<string> {
  let tail = '';
  let at = path;
  for (;;) {
    try {
      return resolve(await realpath(at), tail);
    } catch {
      const up = dirname(at);
      if (up === at) return path;
      tail = tail ? `${at.slice(up.length + 1)}/${tail}` : at.slice(up.length + 1);
      at = up;
    }
  }
}
