import { expect, test } from '../support/fixtures.ts'
import { readSubscription, subscribeThroughApi, withStripeClock } from '../support/stripe.ts'

test('cancelling in the billing portal shows “Cancels on <date>” and keeps Pro until then', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  await withStripeClock(async () => {
    await subscribeThroughApi(page, 'pro')
    const { subscription } = await readSubscription(page)
    const periodEnd = subscription?.currentPeriodEnd
    expect(periodEnd).toBeTruthy()

    await page.goto('/billing')
    const plan = page.getByRole('region', { name: 'Your plan' })
    // The date as the page's own locale prints it.
    const date = await page.evaluate(
      (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'long' }).format(new Date(iso)),
      periodEnd!,
    )
    await expect(plan).toContainText(`Renews on ${date}.`)

    await plan.getByRole('button', { name: 'Manage billing' }).click()
    await expect(
      page.getByRole('heading', { level: 1, name: 'Manage your subscription' }),
    ).toBeVisible()
    await page.getByRole('button', { name: 'Cancel plan' }).click()
    await expect(page.getByRole('status')).toContainText('Your plan will be canceled on')
    await page.getByRole('link', { name: 'Return to Tessera' }).click()

    await expect(page).toHaveURL(/\/billing$/)
    await expect(plan).toContainText(`Cancels on ${date}. You keep Pro until then.`)
    await expect(plan).toContainText('Cancelling')
    await expect(page.getByRole('banner').getByRole('link', { name: /^Current plan:/ })).toHaveText(
      'Pro',
    )
    const after = await readSubscription(page)
    expect(after.entitlements.plan).toBe('pro')
    expect(after.subscription?.cancelAt).toBeTruthy()
  })
  expect(pageErrors).toEqual([])
})
