/**
 * The project on disk: what a session's file tools use when the client offers no `fs` methods.
 * No commands: running programs on the user's machine needs the editor's terminal.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ProjectClient } from './client.ts';

export function localProjectClient(): ProjectClient {
  return {
    via: 'disk',
    async readTextFile(path) {
      try {
        return await readFile(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async writeTextFile(path, content) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content, 'utf8');
    },
  };
}
