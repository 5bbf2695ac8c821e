import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/cleanup.ts'],
    globalSetup: ['test/helpers/suite-code-cache.ts'],
    // Tests spawn the real bk binary and an emulator; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    // Guards against a hang, not bounds on speed: a test that passes in seconds on a quiet machine
    // may take minutes when it shares two cores with a benchmark and other runs.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
