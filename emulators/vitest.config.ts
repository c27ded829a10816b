import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'emulators',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    env: { LOG_LEVEL: 'silent' },
  },
})
