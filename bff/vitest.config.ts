import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'bff',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // Logs stay quiet in tests; a test that asserts on logs passes its own logger.
    env: { LOG_LEVEL: 'silent' },
    // Identity tests run real SDK round trips against the stand-in; CI machines have 2 cores.
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
})
