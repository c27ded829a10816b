import type { Page } from '@playwright/test'
import { expectAccessibleInEveryLook } from '../support/a11y.ts'
import { assistantPage } from '../support/assistant.ts'
import { anonymousTest, expect, test } from '../support/fixtures.ts'

// Every page a visitor reaches, and the states that draw more (a form's errors, a menu, the
// command palette, a conversation with an answer), in the light and dark themes at a desktop's
// and a phone's width. Each finding is reported (soft), so one run lists them all.

const pageHeading = (page: Page) => page.locator('main').getByRole('heading', { level: 1 })

const signedOutPages = [
  '/',
  '/terms',
  '/privacy',
  '/auth/sign-in',
  '/auth/sign-up',
  '/auth/forgot-password',
  '/auth/magic-link',
  '/billing/plans',
]
for (const path of signedOutPages) {
  anonymousTest(`${path}, signed out, passes axe`, async ({ page, pageErrors }) => {
    await page.goto(path)
    await expectAccessibleInEveryLook(page, path, () => expect(pageHeading(page)).toBeVisible())
    expect(pageErrors).toEqual([])
  })
}

anonymousTest('a form showing its errors passes axe', async ({ page, pageErrors }) => {
  await page.goto('/auth/sign-in')
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expectAccessibleInEveryLook(page, 'sign-in with errors', () =>
    expect(page.getByLabel('Email address')).toHaveAttribute('aria-invalid', 'true'),
  )
  expect(pageErrors).toEqual([])
})

const signedInPages = [
  '/assistant',
  '/billing',
  '/billing/plans',
  '/auth/profile',
  '/auth/sessions',
]
for (const path of signedInPages) {
  test(`${path}, signed in, passes axe`, async ({ page, pageErrors }) => {
    await page.goto(path)
    await expectAccessibleInEveryLook(page, path, () => expect(pageHeading(page)).toBeVisible())
    expect(pageErrors).toEqual([])
  })
}

test('a conversation, the account menu and the command palette pass axe', async ({
  page,
  account,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  await page.goto('/assistant')
  await chat.ask('What is a tessera?')
  await chat.settled()
  await expectAccessibleInEveryLook(page, 'a conversation with an answer', () =>
    expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in'),
  )

  const menu = page.getByRole('button', { name: `${account.displayName}, account menu` })
  await expectAccessibleInEveryLook(page, 'the account menu open', async () => {
    if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click()
    await expect(page.getByRole('menuitem', { name: 'Sign out', exact: true })).toBeVisible()
  })
  await page.keyboard.press('Escape')

  await expectAccessibleInEveryLook(page, 'the command palette open', async () => {
    const palette = page.getByRole('dialog')
    if (!(await palette.isVisible())) await page.keyboard.press('Control+k')
    await expect(palette.getByRole('combobox', { name: 'Search commands' })).toBeVisible()
  })
  expect(pageErrors).toEqual([])
})
