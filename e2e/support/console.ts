// The operator console's journeys: the operator of any stack (the shared one or a deploy stack)
// and what a page fetched of the console's files.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { axeTags } from './a11y.ts'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** The stack a journey's operator signs in to. */
export interface StackAddress {
  appUrl: string
  /** The stack's data folder (relative to the repository or absolute): its `operator.json`. */
  dataDir: string
}

/** The stack's first operator, as `npm start` made it (`<dataDir>/operator.json`). */
export async function stackOperator(dataDir: string): Promise<{ email: string; password: string }> {
  const file = path.resolve(repoRoot, dataDir, 'operator.json')
  return JSON.parse(await readFile(file, 'utf8')) as { email: string; password: string }
}

/**
 * A browser context signed in as the stack's first operator. `npm start` grants that account the
 * role as `npm run operators -- grant` does (scripts/lib/first-operator.ts); the CLI itself cannot
 * run beside a stack on PGlite, which holds the database. Each call is another session (another
 * browser) of that operator.
 */
export async function operatorSession(
  browser: Browser,
  stack: StackAddress,
  contextOptions: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page; email: string }> {
  const operator = await stackOperator(stack.dataDir)
  const context = await browser.newContext({ baseURL: stack.appUrl, ...contextOptions })
  const signIn = await context.request.post(`${stack.appUrl}/api/auth/sign-in`, {
    headers: { 'x-tessera-csrf': '1', origin: stack.appUrl },
    data: { email: operator.email, password: operator.password },
  })
  expect(signIn.status(), await signIn.text()).toBeLessThan(300)
  const page = await context.newPage()
  return { context, page, email: operator.email }
}

/** Every request the page makes for the console's files on the cdn (`<cdn>/console/…`). */
export function recordConsoleFiles(page: Page, cdnUrl: string): string[] {
  const urls: string[] = []
  page.on('request', (request) => {
    if (request.url().startsWith(`${cdnUrl}/console/`)) urls.push(request.url())
  })
  return urls
}

/**
 * What axe finds in the console's own part of the page (its mount element, dialogs included), held
 * to the suite's rule sets (a11y.ts); the frame and the other remotes have journeys of their own.
 */
export async function expectConsoleAccessible(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(axeTags)
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .include('[data-tessera-remote="console"]')
    .analyze()
  const findings = results.violations.map((violation) => ({
    rule: violation.id,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }))
  expect.soft(findings, `axe violations in the console on ${state}`).toEqual([])
}
