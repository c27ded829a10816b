// console's journeys, run by the end-to-end suite (e2e/playwright.config.ts, project `remotes`)
// against the stack it starts, which publishes every remote folder's build.
import { expect, test } from '@playwright/test'
import { recordConsoleFiles } from '@tessera/e2e/support/console.ts'
import { firstReadOf } from '@tessera/e2e/support/first-reads.ts'
import { signedInAccount } from '@tessera/e2e/support/identity.ts'
import { e2eStack } from '@tessera/e2e/support/stack.ts'

test('a visitor and a signed-in non-operator never load the console: no nav entry, 403 from its API, "not allowed" at its address', async ({
  page,
  context,
}) => {
  const consoleFiles = recordConsoleFiles(page, e2eStack.cdnUrl)
  const nav = page.getByRole('navigation', { name: 'Main' })

  // A visitor's snapshot names the console as restricted, with no URL to fetch.
  // It comes in the page (first-reads.ts).
  const signInPage = await page.goto('/auth/sign-in')
  if (signInPage === null) throw new Error('the sign-in page did not load')
  const body = await firstReadOf<{
    remotes: { name: string }[]
    restricted?: { name: string; basePath: string }[]
  }>(signInPage, '/api/remotes')
  expect(body.remotes.map((remote) => remote.name)).not.toContain('console')
  expect(body.restricted).toContainEqual({ name: 'console', basePath: '/console' })
  await expect(nav.getByRole('link', { name: 'Billing' })).toBeVisible()
  await expect(nav.getByRole('link', { name: 'Console' })).toHaveCount(0)

  // Signed in, but not an operator.
  await signedInAccount(context, 'not-an-operator')
  await page.goto('/console/remotes/billing')
  const main = page.getByRole('main')
  await expect(main.getByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible()
  await expect(
    main.getByText("This page is for Tessera's operators only.", { exact: false }),
  ).toBeVisible()
  await expect(page).toHaveTitle('Not allowed · Tessera')
  await expect(nav.getByRole('link', { name: 'Console' })).toHaveCount(0)
  await main.getByRole('link', { name: 'Go to the start page' }).click()
  await expect(page).not.toHaveURL(/\/console/)

  for (const path of ['remotes', 'remotes/billing', 'audit', 'tokens', 'health']) {
    const response = await context.request.get(`/api/console/${path}`)
    expect(response.status(), path).toBe(403)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('forbidden')
  }
  const issue = await context.request.post('/api/console/tokens', {
    headers: { 'x-tessera-csrf': '1', origin: e2eStack.appUrl },
    data: { remote: 'billing', label: 'sneaky' },
  })
  expect(issue.status()).toBe(403)

  expect(consoleFiles).toEqual([])
})
