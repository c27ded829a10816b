import { defineConfig } from 'vitest/config'

export default defineConfig({ test: { name: 'plugin-react', include: ['src/**/*.test.{ts,tsx}'] } })
