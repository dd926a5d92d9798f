/**
 * A Parley home that does not exist, for tests: with it every source is the shipped default and no
 * test reads the real per-user home (where a developer's own `parley init` copies live). vitest.config.ts
 * sets it as PARLEY_HOME for every test process; tests that spawn `parley` with their own environment pass it.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NO_HOME = join(tmpdir(), 'parley-test-no-home');
