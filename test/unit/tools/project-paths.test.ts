/** Whether a project tool's path is inside the session's folder: lexically, and on disk after links. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInside, isInsideOnDisk, resolvePath } from '../../../src/tools/project/paths.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-paths-')));
const root = join(base, 'project');
const elsewhere = join(base, 'elsewhere');
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(elsewhere);
symlinkSync(elsewhere, join(root, 'link-out'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('project paths', () => {
  it('relative paths resolve against the root; .. and absolute paths elsewhere are outside', () => {
    expect(resolvePath(root, 'src/a.ts')).toBe(join(root, 'src/a.ts'));
    expect(isInside(root, resolvePath(root, 'src/a.ts'))).toBe(true);
    expect(isInside(root, root)).toBe(true);
    expect(isInside(root, resolvePath(root, '../elsewhere/x'))).toBe(false);
    expect(isInside(root, resolvePath(root, '/etc/passwd'))).toBe(false);
    // A sibling whose name starts like the root is not inside it.
    expect(isInside(root, `${root}-other/file`)).toBe(false);
  });

  it('on disk, a symbolic link inside the folder that leads out of it is outside (also for a file still to be created)', async () => {
    expect(isInside(root, join(root, 'link-out/new.txt'))).toBe(true);
    expect(await isInsideOnDisk(root, join(root, 'link-out/new.txt'))).toBe(false);
    expect(await isInsideOnDisk(root, join(root, 'src/not-yet/new.txt'))).toBe(true);
  });
});
