import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // The CLI tests launch bin/parley.js, which runs dist/: build it first when it is stale.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: keep file parallelism modest so timing-based assertions stay honest.
    maxWorkers: 2,
  },
});
