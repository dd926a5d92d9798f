/**
 * useTestParley: the hooks an engine test file used to write by hand — a TestParley (support/engine.ts)
 * made before the tests and closed after them. Its own file, not engine.ts, because child-process
 * entries (the MCP stdio entry, the ACP fixture) import engine.ts outside vitest.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createTestParley, type TestParley, type TestParleyOptions } from './engine.ts';

export interface UseTestParleyScope {
  /** true: a fresh TestParley for each test (beforeEach/afterEach). Default: one for the file or describe block. */
  each?: boolean;
}

/**
 * Registers the hooks in the calling file (or describe block) and returns the TestParley they make.
 * `options` may be a function, called when the hook runs: for values that hooks registered before this
 * call set up (an MCP fixture's URL). Hooks close in reverse order, so this one closes before those.
 * Read the returned object's fields inside tests and hooks, not at module level (it is made in a hook).
 */
export function useTestParley(
  options: TestParleyOptions | (() => TestParleyOptions) = {},
  scope: UseTestParleyScope = {},
): TestParley {
  let current: TestParley | undefined;
  const live = (): TestParley => {
    if (!current) throw new Error('useTestParley: read the TestParley inside a test or a later hook');
    return current;
  };
  (scope.each ? beforeEach : beforeAll)(async () => {
    current = await createTestParley(typeof options === 'function' ? options() : options);
  });
  (scope.each ? afterEach : afterAll)(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get engine() {
      return live().engine;
    },
    get scripted() {
      return live().scripted;
    },
    get model() {
      return live().model;
    },
    get store() {
      return live().store;
    },
    get approvals() {
      return live().approvals;
    },
    get tools() {
      return live().tools;
    },
    get threads() {
      return live().threads;
    },
    get config() {
      return live().config;
    },
    get deps() {
      return live().deps;
    },
    givePlan: (query, plan) => live().givePlan(query, plan),
    run: (request) => live().run(request),
    close: () => live().close(),
  };
}
