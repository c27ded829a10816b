import { anonymousTest as test, expect } from '../support/fixtures.ts'
import { latestMail, password, signedInAccount } from '../support/identity.ts'

test('a visitor who forgot their password sets a new one from the mail link; the old one stops working', async ({
  page,
  browser,
  request,
}) => {
  const setup = await browser.newContext()
  const { email, displayName } = await signedInAccount(setup, 'recovery')
  await setup.close()

  await page.goto('/auth/forgot-password')
  await page.getByLabel('Email address').fill(email)
  await page.getByRole('button', { name: 'Email me a reset link' }).click()
  const mail = await latestMail(request, email, /reset/i)

  await page.goto(mail.link)
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  const newPassword = 'another long passphrase, entirely new'
  await page.getByLabel('New password', { exact: true }).fill(newPassword)
  await page.getByLabel('Confirm new password').fill(newPassword)
  await page.getByRole('button', { name: 'Save new password' }).click()
  const menu = page.getByRole('button', { name: `${displayName}, account menu` })
  await expect(menu).toBeVisible()

  await menu.click()
  await page.getByRole('menuitem', { name: 'Sign out', exact: true }).click()
  await expect(page).toHaveURL(/\/auth\/sign-in/)

  const signIn = async (withPassword: string) => {
    await page.getByLabel('Email address').fill(email)
    await page.getByLabel('Password', { exact: true }).fill(withPassword)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }
  await signIn(password)
  await expect(page.getByRole('alert')).toBeVisible()
  await expect(menu).toBeHidden()
  await signIn(newPassword)
  await expect(menu).toBeVisible()
})
