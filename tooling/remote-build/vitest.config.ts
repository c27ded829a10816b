import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'remote-build',
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
})
