import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openKv } from '../../../src/store/kv.ts';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openKv', () => {
  it('keeps what was written across a close and reopen of the same data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-kv-'));
    folders.push(dataDir);
    const first = openKv(dataDir);
    await first.db<{ n: number }>('runs').put(['r1', 2], { n: 2 });
    await first.close();

    const second = openKv(dataDir);
    expect(second.db<{ n: number }>('runs').get(['r1', 2])).toEqual({ n: 2 });
    expect(second.db('threads').get(['r1', 2])).toBeUndefined();
    await second.close();
  });

  it('puts :memory: in a temporary folder removed on close', async () => {
    const kv = openKv(':memory:');
    await kv.db('runs').put('a', 1);
    expect(existsSync(kv.path)).toBe(true);
    await kv.close();
    expect(existsSync(kv.path)).toBe(false);
  });
});
