import { expect, test } from '../support/fixtures.ts'
import {
  cards,
  readSubscription,
  stripeControl,
  stripeNow,
  subscribeThroughApi,
  withStripeClock,
} from '../support/stripe.ts'

test('a renewal that fails puts a fix-payment banner in the header of every page, live', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  await withStripeClock(async () => {
    await subscribeThroughApi(page, 'pro', cards.failsAtRenewal)
    const { subscription } = await readSubscription(page)
    const periodEnd = Date.parse(subscription?.currentPeriodEnd ?? '') / 1000
    expect(periodEnd).toBeGreaterThan(0)

    // Another remote's page: the banner lives in the header, so it shows wherever one is.
    await page.goto('/auth/profile')
    const header = page.getByRole('banner')
    await expect(header.getByRole('link', { name: /^Current plan:/ })).toHaveText('Pro')
    await expect(header.getByRole('button', { name: 'Fix payment' })).toHaveCount(0)
    await page.evaluate(() => document.documentElement.setAttribute('data-e2e-loaded', 'once'))

    // Past the end of the paid period: the renewal is charged to the card that fails now.
    await stripeControl('/clock/advance', { seconds: periodEnd - (await stripeNow()) + 3600 })

    await expect(header.getByText('Payment failed', { exact: true })).toBeVisible()
    await expect(header.getByRole('button', { name: 'Fix payment' })).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('data-e2e-loaded', 'once')
    // Still Pro while Stripe retries.
    await expect(header.getByRole('link', { name: /^Current plan:/ })).toHaveText('Pro')

    await page.goto('/billing')
    const banner = page.getByRole('region', { name: 'Your last payment failed' })
    await expect(banner).toContainText('You still have Pro while Stripe retries the payment.')

    await header.getByRole('button', { name: 'Fix payment' }).click()
    await expect(
      page.getByRole('heading', { level: 1, name: 'Manage your subscription' }),
    ).toBeVisible()
    await expect(page.getByRole('alert')).toContainText('Your last payment failed.')
  })
  expect(pageErrors).toEqual([])
})
