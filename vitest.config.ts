import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    include: ['test/**/*.test.ts'],
    // Each file gets a worker process of its own and runs against the shared dev server.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
