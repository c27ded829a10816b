import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'

// Unit tests run in happy-dom; nothing here needs the federation plugin (the loader is injected).
export default defineConfig({
  plugins: [react()],
  test: {
    name: 'host',
    environment: 'happy-dom',
    // As every other project's: the suite's projects share the cores, and an App render under
    // that load has taken over the default 5 s.
    testTimeout: 15_000,
    include: ['src/**/*.test.{ts,tsx}', '*.test.ts'],
    restoreMocks: true,
    setupFiles: ['src/testing/setup.ts'],
  },
})
