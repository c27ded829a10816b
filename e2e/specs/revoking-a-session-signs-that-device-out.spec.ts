import { expect, test } from '../support/fixtures.ts'
import { password } from '../support/identity.ts'

test('revoking a session from a second browser signs the first out at its next request', async ({
  page,
  browser,
  account,
}) => {
  await page.goto('/assistant')
  await expect(
    page.getByRole('button', { name: `${account.displayName}, account menu` }),
  ).toBeVisible()

  const second = await browser.newContext()
  const phone = await second.newPage()
  await phone.goto('/auth/sign-in')
  await phone.getByLabel('Email address').fill(account.email)
  await phone.getByLabel('Password', { exact: true }).fill(password)
  await phone.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(
    phone.getByRole('button', { name: `${account.displayName}, account menu` }),
  ).toBeVisible()

  await phone.goto('/auth/sessions')
  const devices = phone.getByRole('list', { name: 'Signed-in devices' }).getByRole('listitem')
  await expect(devices).toHaveCount(2)
  const firstBrowser = devices.filter({ hasNotText: /this device/i })
  await firstBrowser.getByRole('button', { name: 'Sign out' }).click()
  await firstBrowser.getByRole('group').getByRole('button', { name: 'Sign out' }).click()
  await expect(devices).toHaveCount(1)
  await second.close()

  // The open tab hears of it at once, and says why it is on the sign-in page.
  await expect(page).toHaveURL(/\/auth\/sign-in\?next=%2Fassistant/)
  await expect(page.getByText('You were signed out from another device.')).toBeVisible()
  await page.reload()
  await expect(page).toHaveURL(/\/auth\/sign-in\?next=%2Fassistant/)
})
