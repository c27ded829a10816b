import { anonymousTest as test, expect, recordRemoteScripts } from '../support/fixtures.ts'
import { password, signedInAccount } from '../support/identity.ts'

test('a signed-out visitor who opens /billing signs in and comes back to /billing', async ({
  page,
  browser,
}) => {
  const setup = await browser.newContext()
  const { email } = await signedInAccount(setup, 'guard')
  await setup.close()
  const scripts = recordRemoteScripts(page)
  const remotesFetched = () =>
    [...new Set(scripts.map((url) => new URL(url).pathname.split('/')[1]))].sort()

  await page.goto('/billing')
  await expect(page).toHaveURL(/\/auth\/sign-in\?next=%2Fbilling$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Tessera' })).toBeVisible()
  // Only the sign-in page's remote is fetched, even once idle: the header's usage meter and plan
  // badge are a signed-in visitor's (ai's and billing's descriptors say so), and the host waits for
  // the session before it starts the remote of a page that needs one.
  await page.waitForLoadState('networkidle')
  expect(remotesFetched()).toEqual(['auth'])

  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page).toHaveURL(/\/billing$/)
  await expect(
    page.locator('main [data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  // Signed in, without a reload: the header's slots of every remote load.
  await expect.poll(remotesFetched).toEqual(['ai', 'auth', 'billing'])
  await expect(
    page.locator('header [data-tessera-remote="ai"]').getByRole('link', { name: /^Assistant: / }),
  ).toBeVisible()
})

test('a visitor’s sign-in page loads only its own remote: the header’s meter and badge are for signed-in people', async ({
  page,
}) => {
  const scripts = recordRemoteScripts(page)
  await page.goto('/auth/sign-in')
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Tessera' })).toBeVisible()
  await expect(page.getByRole('banner').getByRole('link', { name: 'Sign in' })).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(new Set(scripts.map((url) => new URL(url).pathname.split('/')[1]))).toEqual(
    new Set(['auth']),
  )
})
