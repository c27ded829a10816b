import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The template's own tests, run against its files as the scaffold renders them (a project of the
// root config): without it they would only ever run in a remote someone scaffolded.
export default defineConfig({
  test: {
    name: 'remote-template',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
})
