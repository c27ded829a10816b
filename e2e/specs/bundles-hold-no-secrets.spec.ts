import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from '@playwright/test'
import { test as signedInTest } from '../support/fixtures.ts'

// Secrets live only in the BFF (docs/decisions/002). This scans every file of every build the
// browser can download: the host and the three remotes.
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const builds = ['host/dist', 'remotes/auth/dist', 'remotes/billing/dist', 'remotes/ai/dist']

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? filesUnder(full) : [full]
  })
}

const secretShapes: Array<[string, RegExp]> = [
  ['Stripe live secret key', /sk_live_[0-9a-zA-Z]/],
  ['Stripe test secret key', /sk_test_[0-9a-zA-Z]/],
  ['Stripe restricted key', /\brk_(live|test)_[0-9a-zA-Z]/],
  ['Stripe webhook secret', /whsec_[0-9a-zA-Z]/],
  ['OpenAI key', /\bsk-(proj-)?[A-Za-z0-9_-]{16,}/],
  [
    'JSON Web Token (Supabase keys and user tokens are JWTs)',
    /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/,
  ],
  ['service-role marker', /service_role/],
]

test('no built bundle contains a secret, a token or a service-role key', () => {
  const files = builds.flatMap((build) => filesUnder(path.join(repo, build)))
  expect(files.length).toBeGreaterThan(10)
  const findings: string[] = []
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const [what, shape] of secretShapes) {
      if (shape.test(text)) findings.push(`${path.relative(repo, file)}: ${what}`)
    }
  }
  expect(findings).toEqual([])
})

signedInTest(
  'the page a signed-in visitor is served, with its first reads’ answers, holds no secret or token',
  async ({ page }) => {
    // The BFF writes the page's first reads into it (first-reads.ts): the session, the remotes, the
    // assistant's list and usage. Their answers are the browser's to see; nothing behind them is.
    const response = await page.goto('/assistant')
    const html = (await response?.text()) ?? ''
    expect(html).toContain('id="tessera-first-reads"')
    expect(html).toContain('"/api/me":{"status":200')
    expect(html).toContain('"/api/assistant/usage":{"status":200')
    expect(secretShapes.filter(([, shape]) => shape.test(html)).map(([what]) => what)).toEqual([])
  },
)
