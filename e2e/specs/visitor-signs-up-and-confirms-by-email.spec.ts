import { anonymousTest as test, expect } from '../support/fixtures.ts'
import { latestMail, password, uniqueEmail } from '../support/identity.ts'

test('a visitor signs up, opens the confirmation mail from the mailbox and is signed in', async ({
  page,
  request,
  pageErrors,
}) => {
  const email = uniqueEmail('signup')
  await page.goto('/auth/sign-up')
  await page.getByLabel('Display name (optional)').fill('Grace Hopper')
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByLabel('Confirm password').fill(password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()

  const mail = await latestMail(request, email, /confirm/i)
  await page.goto(mail.link)
  await expect(page.getByRole('button', { name: 'Grace Hopper, account menu' })).toBeVisible()
  // Nothing a script can read holds a token: only the HttpOnly cookie does.
  const storage = await page.evaluate(
    () => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie,
  )
  expect(storage).not.toMatch(/eyJ|refresh|access_token/)
  const cookies = await page.context().cookies()
  expect(
    cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite })),
  ).toEqual([{ name: 'tessera_session', httpOnly: true, sameSite: 'Lax' }])
  expect(pageErrors).toEqual([])
})
