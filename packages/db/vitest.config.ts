import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'db',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 15_000,
    hookTimeout: 120_000,
  },
})
