import { defineConfig, devices } from '@playwright/test'
import { chromiumArgs, chromiumPath } from '../scripts/lib/chromium.ts'
import { e2eStack } from './support/stack.ts'

// The suite starts its own stack (build + cdn + BFF) on ports of its own, so it never touches a
// stack someone is running by hand, and drives Debian's Chromium (no browser download).
export default defineConfig({
  testDir: './specs',
  // Hang detectors, not performance goals: on a VM whose system calls cost ~1.4 µs (2026-11-28)
  // the journeys took 3.3 times as long as usual, and three hit the earlier 60 s and their own
  // limits (each spec's own `test.setTimeout` was doubled with these).
  timeout: 150_000,
  expect: { timeout: 30_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? 'test-results/report.json' }],
  ],
  use: {
    baseURL: e2eStack.appUrl,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumPath,
      args: chromiumArgs,
    },
  },
  projects: [
    { name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } },
    // Each remote's own journeys (`remotes/<name>/e2e/*.spec.ts`), found by folder like the rest.
    {
      name: 'remotes',
      testDir: '../remotes',
      testMatch: '*/e2e/**/*.spec.ts',
      // A remote a test scaffolds for itself (and removes) is not one of the suite's.
      testIgnore: 'scratch-*/**',
      use: { ...devices['Desktop Chrome'], channel: undefined },
    },
  ],
  webServer: {
    command: 'npx tsx ../scripts/start.ts',
    url: `${e2eStack.appUrl}/api/health`,
    env: e2eStack.env,
    timeout: 600_000,
    reuseExistingServer: !process.env.CI,
    stdout: 'pipe',
    stderr: 'pipe',
  },
})
