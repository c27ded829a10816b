import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { e2eStack } from '../support/stack.ts'
import { expect, test } from '../support/fixtures.ts'
import { cards, readSubscription, stripeControl, withStripeClock } from '../support/stripe.ts'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const bffPort = new URL(e2eStack.appUrl).port
const webhookEndpoint = {
  url: `http://127.0.0.1:${bffPort}/api/billing/webhook`,
  secret: 'whsec_tessera_local_stand_in',
}
const stateChanging = { 'x-tessera-csrf': '1', origin: e2eStack.appUrl }

// The BFF's database lives inside the stack's process (PGlite), so this journey cannot delete a
// row from outside; it makes the same drift the way it happens in production: Stripe's webhooks
// never arrive. (Deleting the row itself is covered in bff/src/bin/billing-reconcile.test.ts.)
test('reconcile brings back a subscription whose webhooks were lost, and the open page turns Pro', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  await withStripeClock(async () => {
    await page.goto('/billing')
    const header = page.getByRole('banner')
    await expect(header.getByRole('link', { name: /^Current plan:/ })).toHaveText('Free')

    // Stripe takes the payment, but no event reaches the BFF.
    await stripeControl('/webhooks/endpoint', { url: null })
    try {
      const started = await page.request.post('/api/billing/checkout', {
        headers: stateChanging,
        data: { plan: 'pro' },
      })
      expect(started.status(), await started.text()).toBe(200)
      const { url } = (await started.json()) as { url: string }
      const sessionId = /\/checkout\/(cs_[^/?#]+)/.exec(url)?.[1]
      await stripeControl(`/checkout/${sessionId}/pay`, {
        card: cards.succeeds.replaceAll(' ', ''),
      })
    } finally {
      await stripeControl('/webhooks/endpoint', webhookEndpoint)
    }
    // The BFF has no row: the user is still on Free, and the page says so.
    expect((await readSubscription(page)).subscription).toBeNull()
    await expect(header.getByRole('link', { name: /^Current plan:/ })).toHaveText('Free')

    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'bff/src/bin/billing-reconcile.ts', '--url', e2eStack.appUrl],
      { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'silent' } },
    )
    expect(stdout).toMatch(/missing/i)

    // The row is back, and the open page learns it live, without a reload.
    expect((await readSubscription(page)).entitlements.plan).toBe('pro')
    await expect(header.getByRole('link', { name: /^Current plan:/ })).toHaveText('Pro')
    await expect(page.getByRole('main')).toContainText('Renews on')
  })
  expect(pageErrors).toEqual([])
})
