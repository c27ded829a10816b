import { defineConfig } from 'vitest/config'

// Tests run the plugin's source directly; the federation build (vite.config.ts) is not involved.
export default defineConfig({
  test: {
    name: 'console',
    environment: 'happy-dom',
    setupFiles: ['src/testing/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // Above the 10 s deadline the tests poll with, for a first page import on a busy machine.
    testTimeout: 15_000,
  },
})
