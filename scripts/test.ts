/**
 * `npm test`: everything CI runs, in order, with its own set-up. Prints one closing line
 * `N passed, N failed` summing the unit and end-to-end runners.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { run } from './lib/build.ts'
import { repoRoot } from './lib/paths.ts'
import { startPostgresServer } from './lib/postgres-server.ts'

const reports = path.join(repoRoot, '.tessera/reports')
rmSync(reports, { recursive: true, force: true })
mkdirSync(reports, { recursive: true })

const started = Date.now()
const steps: Array<[string, () => Promise<void>]> = [
  ['system packages', () => run('bash', ['scripts/ensure-system-deps.sh'])],
  ['typecheck', () => run('npm', ['run', 'typecheck'])],
  ['lint', () => run('npm', ['run', 'lint'])],
  [
    'unit and integration tests (vitest)',
    () =>
      run('npx', [
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${path.join(reports, 'vitest.json')}`,
      ]),
  ],
  [
    'database suites again, on a PostgreSQL server (bff, db, emulators)',
    async () => {
      const server = startPostgresServer(Number(process.env.TEST_PG_PORT ?? 54329))
      try {
        await run(
          'npx',
          [
            'vitest',
            'run',
            '--project',
            'bff',
            '--project',
            'db',
            '--project',
            'emulators',
            '--reporter=default',
            '--reporter=json',
            `--outputFile.json=${path.join(reports, 'vitest-postgres.json')}`,
          ],
          { env: { TESSERA_TEST_DATABASE_URL: server.url } },
        )
      } finally {
        server.stop()
      }
    },
  ],
  [
    'end-to-end tests (playwright, chromium)',
    () =>
      run('npm', ['test', '-w', 'e2e'], {
        env: { PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(reports, 'playwright.json') },
      }),
  ],
]

function counts(): { passed: number; failed: number } {
  let passed = 0
  let failed = 0
  for (const name of ['vitest.json', 'vitest-postgres.json']) {
    const vitest = path.join(reports, name)
    if (!existsSync(vitest)) continue
    const r = JSON.parse(readFileSync(vitest, 'utf8')) as {
      numPassedTests: number
      numFailedTests: number
    }
    passed += r.numPassedTests
    failed += r.numFailedTests
  }
  const pw = path.join(reports, 'playwright.json')
  if (existsSync(pw)) {
    const r = JSON.parse(readFileSync(pw, 'utf8')) as {
      stats: { expected: number; unexpected: number; flaky: number }
    }
    passed += r.stats.expected + r.stats.flaky
    failed += r.stats.unexpected
  }
  return { passed, failed }
}

let failure: string | null = null
for (const [name, step] of steps) {
  console.log(`\n▶ ${name}`)
  try {
    await step()
  } catch (error) {
    failure = `${name}: ${(error as Error).message}`
    break
  }
}
const { passed, failed } = counts()
const minutes = ((Date.now() - started) / 60000).toFixed(1)
console.log(`\n${failure ? `✗ stopped at ${failure}` : '✓ every step passed'} in ${minutes} min`)
console.log(`${passed} passed, ${failure && failed === 0 ? 1 : failed} failed`)
process.exit(failure ? 1 : 0)
