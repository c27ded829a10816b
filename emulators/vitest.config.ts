import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'emulators',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    env: { LOG_LEVEL: 'silent' },
    // SDK round trips against in-process stand-ins run slower when the suite shares 2 cores.
    testTimeout: 15_000,
  },
})
