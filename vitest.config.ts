import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL database and one Temporal dev server per run, shared by every test file.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two files at a time, even on two cores: most of the suite waits on SMTP latency, timers and Temporal, not
    // on CPU (two at a time halves the wall time). Files share the database, so an assertion counts only its
    // own organization's, list's or job's rows.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
