// console's journeys, run by the end-to-end suite (e2e/playwright.config.ts, project `remotes`).
import { expect, test, type Page } from '@playwright/test'
import { expectConsoleAccessible, operatorSession } from '@tessera/e2e/support/console.ts'
import { e2eStack } from '@tessera/e2e/support/stack.ts'

const stack = {
  appUrl: e2eStack.appUrl,
  dataDir: e2eStack.env.TESSERA_DATA_DIR,
}

const pages = [
  {
    path: '/console',
    heading: 'Remotes',
    ready: (page: Page) => page.getByRole('article', { name: 'billing' }),
  },
  {
    path: '/console/remotes/billing',
    heading: 'billing versions',
    ready: (page: Page) => page.getByRole('heading', { name: 'Channels' }),
  },
  {
    path: '/console/audit',
    heading: 'Audit log',
    ready: (page: Page) => page.getByRole('form', { name: 'Filter the audit log' }),
  },
  {
    path: '/console/tokens',
    heading: 'Deploy tokens',
    ready: (page: Page) => page.getByRole('heading', { name: 'Issued tokens' }),
  },
  {
    path: '/console/operators',
    heading: 'Operators',
    ready: (page: Page) => page.getByRole('heading', { name: 'Current operators' }),
  },
  {
    path: '/console/health',
    heading: 'Health',
    ready: (page: Page) => page.getByRole('heading', { name: /BFF replicas/ }),
  },
]

test('an operator opens every console page, which axe finds no fault with, light and dark, at 390 px', async ({
  browser,
}) => {
  test.setTimeout(360_000)
  const operator = await operatorSession(browser, stack, { viewport: { width: 390, height: 844 } })
  const { page } = operator
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))

  // The console is in an operator's navigation (behind the menu at this width).
  await page.goto('/')
  await page.getByRole('button', { name: 'Menu', exact: true }).click()
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Console' })
    .click()
  await expect(page).toHaveURL(/\/console$/)

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const { path, heading, ready } of pages) {
      await page.goto(path)
      const remote = page.locator('main [data-tessera-remote="console"]')
      await expect(remote.getByRole('heading', { level: 1, name: heading })).toBeVisible()
      await expect(ready(page).first()).toBeVisible()
      // Nothing is wider than the phone: tables scroll inside their own regions. Measured once the
      // remote's stylesheet applies (originjs adds it without waiting: a clean-clone run once
      // measured the page before, its 64-character digest not yet allowed to wrap).
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth), {
          message: path,
          timeout: 5000,
        })
        .toBeLessThanOrEqual(390)
      await expectConsoleAccessible(page, `${path} (${scheme})`)
    }
    // A token issued (shown once) and the confirm dialog: modal, labelled, Escape closes it.
    await page.goto('/console/tokens')
    const label = `axe ${scheme} ${Date.now()}`
    await page.getByLabel('Label').fill(label)
    await page.getByRole('button', { name: 'Issue token' }).click()
    await expect(
      page.getByRole('region', { name: new RegExp(`Token for .* \\(${label}\\)`) }),
    ).toBeFocused()
    await expectConsoleAccessible(page, `issued token (${scheme})`)
    await page.getByRole('button', { name: `Revoke ${label}` }).click()
    const dialog = page.getByRole('dialog', { name: `Revoke “${label}”?` })
    await expect(dialog).toBeVisible()
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await expectConsoleAccessible(page, `confirm dialog (${scheme})`)
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)
    await expect(page.getByRole('button', { name: `Revoke ${label}` })).toBeFocused()
    // The operators' revoke dialog, opened on the operator's own row and closed unconfirmed.
    await page.goto('/console/operators')
    const own = page.getByRole('button', { name: `Revoke ${operator.email}` })
    await own.click()
    const revoke = page.getByRole('dialog', { name: 'Revoke your own operator role?' })
    await expect(revoke.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await expectConsoleAccessible(page, `revoke operator dialog (${scheme})`)
    await page.keyboard.press('Escape')
    await expect(revoke).toHaveCount(0)
    await expect(own).toBeFocused()
  }
  expect(errors).toEqual([])
  await operator.context.close()
})
