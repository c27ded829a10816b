import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Tests of the repository scripts (storage drivers, publishing): a project of the root config.
export default defineConfig({
  test: {
    name: 'scripts',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.test.ts'],
    environment: 'node',
    env: { LOG_LEVEL: 'silent' },
    // SDK round trips against in-process stand-ins run slower when the suite shares 2 cores.
    testTimeout: 15_000,
  },
})
