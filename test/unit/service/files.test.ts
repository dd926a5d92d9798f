/** The service files of a data dir (docs/service.md): stale records, the token's mode. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  newServiceToken,
  readLiveService,
  readServiceToken,
  removeServiceRecord,
  servicePaths,
  writeServiceRecord,
} from '../../../src/service/files.ts';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-service-files-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const record = (pid: number) => ({
  pid,
  url: 'http://127.0.0.1:40000',
  port: 40000,
  startedAt: new Date().toISOString(),
  version: '0.1.0',
  idleExitMs: 0,
});

/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('service files', () => {
  it('a record whose process is alive is the live service; a dead pid makes it stale and ignored', () => {
    const paths = servicePaths(dataDir());
    writeServiceRecord(paths, record(process.pid));
    expect(readLiveService(paths)).toMatchObject({ pid: process.pid, port: 40000 });
    writeServiceRecord(paths, record(deadPid()));
    expect(readLiveService(paths)).toBeUndefined();
  });

  it('a missing, garbled or malformed record is no service', () => {
    const paths = servicePaths(dataDir());
    expect(readLiveService(paths)).toBeUndefined();
    writeFileSync(paths.record, '{ not json');
    expect(readLiveService(paths)).toBeUndefined();
    writeFileSync(paths.record, JSON.stringify({ pid: process.pid, url: 'nope' }));
    expect(readLiveService(paths)).toBeUndefined();
  });

  it('removes the record only when it still names the given pid', () => {
    const paths = servicePaths(dataDir());
    writeServiceRecord(paths, record(process.pid));
    removeServiceRecord(paths, process.pid + 1);
    expect(readLiveService(paths)?.pid).toBe(process.pid);
    removeServiceRecord(paths, process.pid);
    expect(readLiveService(paths)).toBeUndefined();
  });

  it('each start writes a fresh random token that only the user can read (0600)', () => {
    const paths = servicePaths(dataDir());
    const first = newServiceToken(paths);
    expect(statSync(paths.token).mode & 0o777).toBe(0o600);
    expect(readServiceToken(paths)).toBe(first);
    const second = newServiceToken(paths);
    expect(second).not.toBe(first);
    expect(second.length).toBeGreaterThanOrEqual(40);
    expect(statSync(paths.token).mode & 0o777).toBe(0o600);
  });
});
