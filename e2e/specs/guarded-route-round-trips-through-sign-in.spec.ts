import { anonymousTest as test, expect } from '../support/fixtures.ts'
import { password, signedInAccount } from '../support/identity.ts'

test('a signed-out visitor who opens /billing signs in and comes back to /billing', async ({
  page,
  browser,
}) => {
  const setup = await browser.newContext()
  const { email } = await signedInAccount(setup, 'guard')
  await setup.close()

  await page.goto('/billing')
  await expect(page).toHaveURL(/\/auth\/sign-in\?next=%2Fbilling$/)
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page).toHaveURL(/\/billing$/)
  await expect(
    page.locator('main [data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
})
