import { defineConfig } from 'vitest/config'

// One Vitest run over every workspace that has unit tests; each project keeps its own config.
export default defineConfig({
  test: {
    projects: [
      'contracts',
      'bff',
      'host',
      'remotes/*',
      'emulators',
      'packages/*',
      'tooling/*',
      'scripts',
    ],
  },
})
