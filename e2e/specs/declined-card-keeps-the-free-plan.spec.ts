import { expect, test } from '../support/fixtures.ts'
import { cards, payOnCheckoutPage, readSubscription, withStripeClock } from '../support/stripe.ts'

test('a declined card leaves the user on Free with a message saying so', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  await page.goto('/billing/plans')
  const plans = page.getByRole('list', { name: 'Plans' })

  await withStripeClock(async () => {
    await plans
      .getByRole('listitem', { name: 'Pro' })
      .getByRole('button', { name: 'Subscribe to Pro' })
      .click()
    await expect(page).toHaveURL(/\/checkout\/cs_/)
    await payOnCheckoutPage(page, cards.declined)
    await expect(page.getByRole('alert')).toHaveText('Your card was declined.')
    await page.getByRole('link', { name: 'Cancel' }).click()
  })

  await expect(page).toHaveURL(/\/billing\/plans\?checkout=cancelled$/)
  await expect(page.getByRole('main').getByRole('status').first()).toHaveText(
    'Checkout was cancelled — you are still on Free.',
  )
  await expect(plans.getByRole('listitem', { name: 'Free' })).toContainText('Current plan')
  await expect(page.getByRole('banner').getByRole('link', { name: /^Current plan:/ })).toHaveText(
    'Free',
  )
  const { subscription, entitlements } = await readSubscription(page)
  expect(subscription).toBeNull()
  expect(entitlements.plan).toBe('free')
  expect(pageErrors).toEqual([])
})
