import { errorBodySchema, reconcileReportSchema } from '@tessera/contracts'
import type { ReconcileReport } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatReport, runReconcileCommand } from './billing-reconcile.ts'
import { signAdminRequest } from '../modules/billing/admin-signature.ts'
import { TEST_WEBHOOK_SECRET, startBillingTestApp } from '../testing/billing.ts'
import type { BillingTestApp } from '../testing/billing.ts'
import { csrfHeaders } from '../testing/app.ts'

let t: BillingTestApp
let counter = 0
const email = (name: string) => `${name}-${(counter += 1)}@example.com`

beforeAll(async () => {
  t = await startBillingTestApp()
})

afterAll(async () => {
  await t.close()
})

async function reconcile(
  body: unknown = {},
  options: { secret?: string; timestamp?: number; header?: string | null } = {},
): Promise<Response> {
  const text = JSON.stringify(body)
  const header =
    options.header === undefined
      ? await signAdminRequest(
          options.secret ?? TEST_WEBHOOK_SECRET,
          text,
          options.timestamp ?? Math.floor(Date.now() / 1000),
        )
      : options.header
  return t.harness.app.request('/api/billing/reconcile', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(header === null ? {} : { 'tessera-signature': header }),
    },
    body: text,
  })
}

async function reportOf(response: Response): Promise<ReconcileReport> {
  expect(response.status, await response.clone().text()).toBe(200)
  return reconcileReportSchema.parse(await response.json())
}

async function subscribedUser(name: string) {
  const user = await t.user(email(name))
  await t.subscribe(user.browser, 'pro')
  await t.webhooksSettled()
  const [row] = await t.subscriptionRows(user.userId)
  if (row === undefined) throw new Error('no subscription row')
  return { ...user, subscriptionId: row.stripe_subscription_id }
}

describe('POST /api/billing/reconcile', () => {
  it('puts back a subscription row deleted by hand, and tells the user’s tabs', async () => {
    const { browser, userId, subscriptionId } = await subscribedUser('deleted-row')
    await t.db.query('delete from public.billing_subscriptions where user_id = $1', [userId])
    // This process still holds the user's plan for a moment; the repair replaces it.
    const stream = await browser.events()
    const report = await reportOf(await reconcile())
    expect(report.drift).toContainEqual(
      expect.objectContaining({ kind: 'missing_subscription_row', subscriptionId, fixed: true }),
    )
    const rows = await t.subscriptionRows(userId)
    expect(rows.map((row) => [row.stripe_subscription_id, row.plan, row.status])).toEqual([
      [subscriptionId, 'pro', 'active'],
    ])
    const frame = await stream.next(
      (candidate) =>
        (JSON.parse(candidate.data) as { type?: string }).type === 'billing.subscription',
    )
    expect(JSON.parse(frame.data)).toMatchObject({ data: { subscription: { plan: 'pro' } } })
    await stream.cancel()
    // A second run finds nothing more to do for this user.
    const again = await reportOf(await reconcile())
    expect(again.drift.filter((item) => item.userId === userId)).toEqual([])
  })

  it('repairs a row whose status and plan drifted, naming the fields', async () => {
    const { userId, subscriptionId } = await subscribedUser('drifted')
    await t.db.query(
      "update public.billing_subscriptions set status = 'past_due', plan = 'team' where user_id = $1",
      [userId],
    )
    const report = await reportOf(await reconcile())
    const item = report.drift.find((candidate) => candidate.subscriptionId === subscriptionId)
    expect(item).toMatchObject({ kind: 'subscription_mismatch', fixed: true })
    expect(item?.fields).toEqual(
      expect.arrayContaining([
        { field: 'plan', stored: 'team', stripe: 'pro' },
        { field: 'status', stored: 'past_due', stripe: 'active' },
      ]),
    )
    const [row] = await t.subscriptionRows(userId)
    expect([row?.plan, row?.status]).toEqual(['pro', 'active'])
  })

  it('only reports on a dry run', async () => {
    const { userId, subscriptionId } = await subscribedUser('dry')
    await t.db.query('delete from public.billing_subscriptions where user_id = $1', [userId])
    const report = await reportOf(await reconcile({ dryRun: true }))
    expect(report.dryRun).toBe(true)
    expect(report.drift).toContainEqual(
      expect.objectContaining({ kind: 'missing_subscription_row', subscriptionId, fixed: false }),
    )
    expect(await t.subscriptionRows(userId)).toEqual([])
    await reportOf(await reconcile())
    expect(await t.subscriptionRows(userId)).toHaveLength(1)
  })

  it('puts back a customer row from the customer’s metadata', async () => {
    const { userId, subscriptionId } = await subscribedUser('customer-row')
    // Deleting the customer row takes its subscriptions with it (on delete cascade).
    await t.db.query('delete from public.billing_customers where user_id = $1', [userId])
    const report = await reportOf(await reconcile())
    expect(report.drift).toContainEqual(
      expect.objectContaining({ kind: 'missing_customer_row', userId, fixed: true }),
    )
    expect(report.drift).toContainEqual(
      expect.objectContaining({ kind: 'missing_subscription_row', subscriptionId, fixed: true }),
    )
    expect(await t.subscriptionRows(userId)).toHaveLength(1)
  })

  it('removes a row for a subscription Stripe does not have', async () => {
    const { userId, subscriptionId } = await subscribedUser('phantom')
    await t.db.query(
      "update public.billing_subscriptions set stripe_subscription_id = 'sub_phantom0000000000000000' where stripe_subscription_id = $1",
      [subscriptionId],
    )
    const report = await reportOf(await reconcile())
    expect(report.drift).toContainEqual(
      expect.objectContaining({
        kind: 'not_at_stripe',
        subscriptionId: 'sub_phantom0000000000000000',
        fixed: true,
      }),
    )
    const rows = await t.subscriptionRows(userId)
    expect(rows.map((row) => row.stripe_subscription_id)).toEqual([subscriptionId])
  })

  it('refuses a request that is unsigned, wrongly signed, stale or from a browser', async () => {
    const unsigned = await reconcile({}, { header: null })
    expect(unsigned.status).toBe(403)
    const wrong = await reconcile({}, { secret: 'whsec_other' })
    expect(wrong.status).toBe(403)
    const stale = await reconcile({}, { timestamp: Math.floor(Date.now() / 1000) - 301 })
    expect(stale.status).toBe(403)
    expect(errorBodySchema.parse(await stale.json()).error.details?.reason).toMatch(/too old/)
    // A Stripe webhook signature is not an operator's signature.
    const payload = JSON.stringify({})
    const webhookSigned = await reconcile(
      {},
      {
        header: t.stripe.webhooks.generateTestHeaderString({
          payload,
          secret: TEST_WEBHOOK_SECRET,
        }),
      },
    )
    expect(webhookSigned.status).toBe(403)
    // A signed-in browser has no way in either.
    const { browser } = await t.user(email('browser'))
    const fromBrowser = await browser.request('/api/billing/reconcile', {
      method: 'POST',
      headers: csrfHeaders,
      body: '{}',
    })
    expect(fromBrowser.status).toBe(403)
  })

  it('refuses a body with unknown fields', async () => {
    const response = await reconcile({ everything: true })
    expect(response.status).toBe(422)
  })
})

describe('npm run billing:reconcile', () => {
  it('asks the running BFF and prints what it found and fixed', async () => {
    const { userId, subscriptionId } = await subscribedUser('cli')
    await t.db.query('delete from public.billing_subscriptions where user_id = $1', [userId])
    const lines: string[] = []
    const code = await runReconcileCommand(['--url', 'http://bff.test'], {
      env: { STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET },
      write: (line) => lines.push(line),
      fetch: ((input: string | URL | Request, init?: RequestInit) =>
        Promise.resolve(t.harness.app.request(String(input), init))) as typeof fetch,
    })
    expect(code).toBe(0)
    const text = lines.join('\n')
    expect(text).toContain('through the running BFF at http://bff.test')
    expect(text).toContain(`missing_subscription_row ${subscriptionId}`)
    expect(text).toMatch(/fixed: \d+ of \d+/)
    expect(await t.subscriptionRows(userId)).toHaveLength(1)
  })

  it('works on the database directly when asked to', async () => {
    const { userId, subscriptionId } = await subscribedUser('cli-direct')
    await t.db.query(
      "update public.billing_subscriptions set status = 'canceled' where user_id = $1",
      [userId],
    )
    const lines: string[] = []
    const code = await runReconcileCommand(['--direct', '--dry-run'], {
      env: {},
      write: (line) => lines.push(line),
      openDirect: () =>
        Promise.resolve({
          sql: t.db,
          stripe: t.clients.background,
          description: 'the test database',
          close: () => Promise.resolve(),
        }),
    })
    expect(code).toBe(0)
    const text = lines.join('\n')
    expect(text).toContain('dry run')
    expect(text).toContain(`subscription_mismatch ${subscriptionId}`)
    expect(text).toContain('status: stored canceled → Stripe active')
  })

  it('prints a team whose seats differ from its members, and why a fix failed', () => {
    const lines = formatReport(
      {
        dryRun: false,
        customersAtStripe: 1,
        subscriptionsAtStripe: 1,
        rowsChecked: 1,
        drift: [
          {
            kind: 'seat_mismatch',
            customerId: 'cus_1',
            subscriptionId: 'sub_1',
            workspaceId: 'w-1',
            seats: { quantity: 2, members: 3, target: 3 },
            fixed: false,
            error: 'Changing the seats failed: Stripe is down',
          },
        ],
        fixed: 0,
        startedAt: '2026-11-26T12:00:00.000Z',
        finishedAt: '2026-11-26T12:00:01.000Z',
      },
      'the database',
    )
    expect(lines).toContain('  - seat_mismatch sub_1 (customer cus_1): NOT fixed')
    expect(lines).toContain('      seats: 2 for 3 members in workspace w-1 → 3')
    expect(lines).toContain('      error: Changing the seats failed: Stripe is down')
  })
})
