import { expect, test } from '../support/fixtures.ts'
import { cards, payOnCheckoutPage, stripeControl, withStripeClock } from '../support/stripe.ts'

test('a free user subscribes to Pro on the checkout page and the badge turns Pro without a reload', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  await page.goto('/billing/plans')
  const badge = page.getByRole('banner').getByRole('link', { name: /^Current plan:/ })
  await expect(badge).toHaveText('Free')
  const pro = page.getByRole('list', { name: 'Plans' }).getByRole('listitem', { name: 'Pro' })
  const free = page.getByRole('list', { name: 'Plans' }).getByRole('listitem', { name: 'Free' })
  await expect(free).toContainText('Current plan')

  await withStripeClock(async () => {
    await pro.getByRole('button', { name: 'Subscribe to Pro' }).click()
    await expect(page).toHaveURL(/\/checkout\/cs_/)
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Subscribe to Tessera Pro')

    // Held webhooks: back in the app, the redirect alone must not grant anything.
    await stripeControl('/webhooks/pause', {})
    try {
      await payOnCheckoutPage(page, cards.succeeds)
      await expect(page).toHaveURL(/\/billing\/return\?session_id=cs_/)
      const main = page.getByRole('main')
      await expect(main.getByRole('heading', { level: 1 })).toHaveText(
        'Confirming your subscription',
      )
      await expect(main.getByRole('status').first()).toHaveText(
        'Payment received. Confirming your subscription…',
      )
      await expect(badge).toHaveText('Free')
      // Marks this document: a reload would lose the mark.
      await page.evaluate(() => document.documentElement.setAttribute('data-e2e-loaded', 'once'))
    } finally {
      await stripeControl('/webhooks/resume', {})
    }
  })

  await expect(page.getByRole('heading', { level: 1, name: "You're on Pro" })).toBeVisible()
  await expect(badge).toHaveText('Pro')
  await expect(page.locator('html')).toHaveAttribute('data-e2e-loaded', 'once')
  await page.getByRole('link', { name: 'Open the assistant' }).click()
  await expect(page).toHaveURL(/\/assistant$/)
  expect(pageErrors).toEqual([])
})
