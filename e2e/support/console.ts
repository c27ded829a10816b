// The operator console's journeys: the operator of any stack (the shared one or a deploy stack)
// and what a page fetched of the console's files.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { axeTags } from './a11y.ts'
import { password, uniqueEmail } from './identity.ts'

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

/**
 * A browser context signed in as a new, confirmed account of the stack (the auth pages' own calls:
 * sign-up, the mailbox's link, confirm). It holds no role until an operator grants one.
 */
export async function signedUpSession(
  browser: Browser,
  stack: StackAddress & { mailboxUrl: string },
  what: string,
  contextOptions: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page; email: string }> {
  const email = uniqueEmail(what)
  const context = await browser.newContext({ baseURL: stack.appUrl, ...contextOptions })
  const headers = { 'x-tessera-csrf': '1', origin: stack.appUrl }
  const signUp = await context.request.post(`${stack.appUrl}/api/auth/sign-up`, {
    headers,
    data: { email, password, displayName: 'Grace Hopper' },
  })
  expect(signUp.status(), await signUp.text()).toBeLessThan(300)
  let tokenHash: string | null = null
  await expect
    .poll(async () => {
      const response = await context.request.get(
        `${stack.mailboxUrl}/api/messages?to=${encodeURIComponent(email)}`,
      )
      const { messages } = (await response.json()) as { messages: { text: string }[] }
      const link = messages
        .map((message) => /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(message.text)?.[0])
        .find((found) => found !== undefined)
      tokenHash = link === undefined ? null : new URL(link).searchParams.get('token_hash')
      return tokenHash
    })
    .not.toBeNull()
  const confirm = await context.request.post(`${stack.appUrl}/api/auth/confirm`, {
    headers,
    data: { tokenHash, type: 'signup' },
  })
  expect(confirm.status(), await confirm.text()).toBeLessThan(300)
  const page = await context.newPage()
  return { context, page, email }
}

/**
 * An operator grants the role to `email` on the console's Operators page, as
 * `npm run operators -- grant <email>` would; resolves once the list shows them.
 */
export async function grantOperatorInConsole(page: Page, email: string): Promise<void> {
  await page.goto('/console/operators')
  await expect(page.getByRole('heading', { level: 1, name: 'Operators' })).toBeVisible()
  await page.getByLabel('Email of the account').fill(email)
  await page.getByRole('button', { name: 'Grant operator role' }).click()
  await expect(page.getByRole('button', { name: `Revoke ${email}` })).toBeVisible()
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
