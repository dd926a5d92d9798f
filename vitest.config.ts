import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: keep file parallelism modest so timing-based assertions stay honest.
    maxWorkers: 2,
  },
});
