import { errorBodySchema, webhookAckSchema } from '@tessera/contracts'
import type { Entitlements } from '@tessera/contracts'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonOf } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { stateOf, stateOfRow, differences } from './subscription-state.ts'
import { stripeSubscriptionSchema } from './subscription-state.ts'
import { startBillingTestApp } from '../../testing/billing.ts'
import type { BillingTestApp } from '../../testing/billing.ts'

let t: BillingTestApp
let counter = 0
const email = (name: string) => `${name}-${(counter += 1)}@example.com`

beforeAll(async () => {
  t = await startBillingTestApp()
})

afterAll(async () => {
  await t.close()
})

const nowSeconds = () => Math.floor(Date.now() / 1000)
/** Resolves within the first 100 ms of a wall-clock second. */
const earlyInASecond = () =>
  new Promise<void>((resolve) => {
    const into = Date.now() % 1000
    setTimeout(resolve, into < 100 ? 0 : 1000 - into)
  })

function eventBody(type: string, object: unknown, id = `evt_test_${crypto.randomUUID()}`) {
  return JSON.stringify({
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: nowSeconds(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  })
}

/** The stand-in's events for one customer (or its subscriptions and sessions), oldest first. */
function eventsOf(customerId: string, types?: RegExp) {
  return t.emulator.control
    .events()
    .map((entry) => entry.event)
    .filter((event) => {
      const object = event.data.object as { customer?: unknown; id?: unknown }
      return (
        (object.customer === customerId || object.id === customerId) &&
        (types === undefined || types.test(event.type))
      )
    })
}

async function customerOf(userId: string): Promise<string> {
  const { rows } = await t.db.query<{ stripe_customer_id: string }>(
    'select stripe_customer_id from public.billing_customers where user_id = $1',
    [userId],
  )
  const id = rows[0]?.stripe_customer_id
  if (id === undefined) throw new Error('the user has no customer')
  return id
}

/** The subscription Stripe holds now, as the BFF would store it. */
async function stripeState(subscriptionId: string) {
  return stateOf(
    stripeSubscriptionSchema.parse(await t.stripe.subscriptions.retrieve(subscriptionId)),
  )
}

async function expectStoredAsStripe(userId: string, subscriptionId: string) {
  const rows = await t.subscriptionRows(userId)
  const row = rows.find((candidate) => candidate.stripe_subscription_id === subscriptionId)
  expect(row, 'the subscription row').toBeDefined()
  if (row === undefined) return
  expect(differences(stateOfRow(row), await stripeState(subscriptionId))).toEqual([])
}

/**
 * The end of a same-second pair: the first event re-fetched from Stripe, the second settled
 * `unchanged`, the row as Stripe has it; then the held webhooks go out and settle.
 */
async function expectTieSettled(pair: {
  refetched: string | undefined
  unchanged: string | undefined
  userId: string
  subscriptionId: string
}) {
  const ledger = await t.ledger()
  expect(ledger.find((row) => row.id === pair.refetched)?.outcome).toBe('refetched')
  expect(ledger.find((row) => row.id === pair.unchanged)?.outcome).toBe('unchanged')
  await expectStoredAsStripe(pair.userId, pair.subscriptionId)
  t.emulator.control.resumeWebhooks()
  await t.webhooksSettled()
}

/** Subscribes with webhooks held back; returns the ids the later steps need. */
async function heldSubscription(name: string) {
  const { browser, userId } = await t.user(email(name))
  t.emulator.control.pauseWebhooks()
  await t.subscribe(browser, 'pro')
  const customerId = await customerOf(userId)
  const subscriptionId = (await t.stripe.subscriptions.list({ customer: customerId })).data[0]?.id
  if (subscriptionId === undefined) throw new Error('no subscription at Stripe')
  return { browser, userId, customerId, subscriptionId }
}

async function deliver(ids: string[]) {
  const results = await t.emulator.control.deliver(ids)
  for (const result of results) expect(result.statusCode, result.error ?? '').toBe(200)
  return results
}

describe('POST /api/billing/webhook: signatures', () => {
  it('refuses a bad signature with 400 and stores nothing', async () => {
    const before = (await t.ledger()).length
    const response = await t.postEvent(eventBody('customer.subscription.updated', {}), {
      secret: 'whsec_someone_else',
    })
    expect(response.status).toBe(400)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe(
      'webhook_signature_invalid',
    )
    expect(await t.ledger()).toHaveLength(before)
  })

  it('refuses a delivery without a Stripe-Signature header', async () => {
    const response = await t.harness.app.request('/api/billing/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: eventBody('customer.created', {}),
    })
    expect(response.status).toBe(400)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe(
      'webhook_signature_invalid',
    )
  })

  it('refuses a signature made 301 s ago, and takes one made 299 s ago', async () => {
    const stale = await t.postEvent(eventBody('charge.refunded', {}), {
      timestamp: nowSeconds() - 301,
    })
    expect(stale.status).toBe(400)
    const fresh = await t.postEvent(eventBody('charge.refunded', {}), {
      timestamp: nowSeconds() - 299,
    })
    expect(fresh.status).toBe(200)
  })

  it('refuses a signature made for 301 s from now, and takes one made for 299 s from now', async () => {
    const before = (await t.ledger()).length
    const ahead = await t.postEvent(eventBody('charge.refunded', {}), {
      timestamp: nowSeconds() + 3600,
    })
    expect(ahead.status).toBe(400)
    expect(errorBodySchema.parse(await ahead.json()).error.code).toBe('webhook_signature_invalid')
    // The BFF reads its own clock in whole seconds: sign early in a second, so that the second
    // cannot turn between this line and its check and make 301 s ahead read as 300.
    await earlyInASecond()
    const justAhead = await t.postEvent(eventBody('charge.refunded', {}), {
      timestamp: nowSeconds() + 301,
    })
    expect(justAhead.status).toBe(400)
    expect(await t.ledger()).toHaveLength(before)
    const withinTolerance = await t.postEvent(eventBody('charge.refunded', {}), {
      timestamp: nowSeconds() + 299,
    })
    expect(withinTolerance.status).toBe(200)
  })

  it('acknowledges a signed body that is not an event as invalid, not with a 500', async () => {
    for (const payload of ['null', '42', '[]', '"event"']) {
      const response = await t.postEvent(payload)
      expect(response.status, payload).toBe(200)
      expect(webhookAckSchema.parse(await response.json())).toMatchObject({ outcome: 'invalid' })
    }
  })

  it('acknowledges a signed event carrying NUL as invalid and stores nothing of it', async () => {
    const before = (await t.ledger()).length
    const typed = await t.postEvent(eventBody('charge.refunded\u0000', {}))
    const nested = await t.postEvent(
      eventBody('customer.subscription.updated', { id: 'sub_1', customer: 'cus_\u0000' }),
    )
    for (const response of [typed, nested]) {
      expect(response.status).toBe(200)
      expect(webhookAckSchema.parse(await response.json())).toMatchObject({ outcome: 'invalid' })
    }
    expect(await t.ledger()).toHaveLength(before)
  })

  it('refuses a body that is not sent as JSON', async () => {
    const payload = eventBody('charge.refunded', {})
    const response = await t.harness.app.request('/api/billing/webhook', {
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        'stripe-signature': t.stripe.webhooks.generateTestHeaderString({
          payload,
          secret: 'whsec_billing_tests_secret',
        }),
      },
      body: payload,
    })
    expect(response.status).toBe(415)
  })
})

describe('POST /api/billing/webhook: events', () => {
  it('acknowledges an event type it does not handle, and only notes it', async () => {
    const id = `evt_test_${crypto.randomUUID()}`
    const response = await t.postEvent(eventBody('charge.refunded', { id: 'ch_1' }, id))
    expect(response.status).toBe(200)
    expect(webhookAckSchema.parse(await response.json())).toMatchObject({ outcome: 'ignored' })
    expect((await t.ledger()).find((row) => row.id === id)).toMatchObject({ outcome: 'ignored' })
  })

  it('logs and acknowledges an event for a customer it does not know', async () => {
    // A customer made at Stripe directly (another app on the account, a test in the dashboard).
    const stranger = await t.stripe.customers.create({ email: 'stranger@example.com' })
    const prices = await t.stripe.prices.list({ lookup_keys: ['tessera_pro_monthly'] })
    const session = await t.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: stranger.id,
      line_items: [{ price: prices.data[0]?.id ?? '', quantity: 1 }],
      success_url: 'http://elsewhere.test/ok',
    })
    const paid = t.emulator.control.payCheckoutSession(session.id, {
      number: '4242424242424242',
      expiry: '12 / 40',
      cvc: '123',
      name: 'Stranger',
    })
    expect(paid.ok).toBe(true)
    await t.webhooksSettled()
    const created = eventsOf(stranger.id, /^customer\.subscription\.created$/)[0]
    expect(created).toBeDefined()
    const ledger = await t.ledger()
    expect(ledger.find((row) => row.id === created?.id)).toMatchObject({
      outcome: 'unknown_customer',
    })
    expect(
      t.harness.logs.some(
        (line) =>
          line.level === 'warn' &&
          String(line.msg).includes('customer we do not know') &&
          line.customer === stranger.id,
      ),
    ).toBe(true)
    const delivery = t.emulator.control.events().find((entry) => entry.event.id === created?.id)
    expect(delivery?.delivery?.attempts.map((attempt) => attempt.statusCode)).toEqual([200])
  })

  it('applies an event delivered twice only once', async () => {
    const { browser, userId, customerId } = await heldSubscription('twice')
    t.emulator.control.resumeWebhooks()
    await t.webhooksSettled()
    const created = eventsOf(customerId, /^customer\.subscription\.created$/)[0]
    if (created === undefined) throw new Error('no created event')
    const publishedBefore = t.harness.published.length
    const again = await t.emulator.control.resend(created.id)
    expect(again.statusCode).toBe(200)
    const again2 = await t.postEvent(JSON.stringify(created))
    expect(webhookAckSchema.parse(await again2.json()).outcome).toBe('duplicate')
    expect((await t.ledger()).filter((row) => row.id === created.id)).toHaveLength(1)
    expect(t.harness.published.length).toBe(publishedBefore)
    const me = await jsonOf<{ entitlements: Entitlements }>(await browser.get('/api/me'))
    expect(me.entitlements.plan).toBe('pro')
    expect(await t.subscriptionRows(userId)).toHaveLength(1)
  })

  it('ends right when customer.subscription.updated arrives before created', async () => {
    const { userId, customerId, subscriptionId } = await heldSubscription('order')
    t.emulator.control.advanceClock(60)
    await t.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    const created = eventsOf(customerId, /^customer\.subscription\.created$/)
    const updated = eventsOf(customerId, /^customer\.subscription\.updated$/)
    expect(updated).toHaveLength(1)
    await deliver([...updated, ...created].map((event) => event.id))
    await expectStoredAsStripe(userId, subscriptionId)
    const [row] = await t.subscriptionRows(userId)
    expect(row?.cancel_at).not.toBeNull()
    const outcomes = await t.ledger()
    expect(outcomes.find((entry) => entry.id === created[0]?.id)?.outcome).toBe('stale')
    t.emulator.control.resumeWebhooks()
    await t.webhooksSettled()
    await expectStoredAsStripe(userId, subscriptionId)
  })

  it('ends canceled when deleted arrives before updated', async () => {
    const { browser, userId, customerId, subscriptionId } = await heldSubscription('deleted')
    t.emulator.control.advanceClock(60)
    await t.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    t.emulator.control.advanceClock(60)
    await t.stripe.subscriptions.cancel(subscriptionId)
    const byType = (type: string) =>
      eventsOf(customerId, new RegExp(`^customer\\.subscription\\.${type}$`)).map((e) => e.id)
    await deliver([...byType('deleted'), ...byType('updated'), ...byType('created')])
    const [row] = await t.subscriptionRows(userId)
    expect(row?.status).toBe('canceled')
    await expectStoredAsStripe(userId, subscriptionId)
    t.emulator.control.resumeWebhooks()
    await t.webhooksSettled()
    const body = await t.subscriptionOf(browser)
    expect(body.subscription).toBeNull()
    expect(body.entitlements).toMatchObject({ plan: 'free', status: 'canceled' })
  })

  it('asks Stripe when an event has the same second as the stored state', async () => {
    const { userId, customerId, subscriptionId } = await heldSubscription('tie')
    // The completed session carries no subscription state; created has the same second.
    const completed = eventsOf(customerId, /^checkout\.session\.completed$/)
    const created = eventsOf(customerId, /^customer\.subscription\.created$/)
    expect(completed[0]?.created).toBe(created[0]?.created)
    const results = await deliver([...completed, ...created].map((event) => event.id))
    expect(results).toHaveLength(2)
    await expectTieSettled({
      refetched: completed[0]?.id,
      unchanged: created[0]?.id,
      userId,
      subscriptionId,
    })
  })

  it('settles a same-second event that agrees with the stored row without asking Stripe', async () => {
    const { userId, customerId, subscriptionId } = await heldSubscription('agree')
    const completed = eventsOf(customerId, /^checkout\.session\.completed$/)
    const created = eventsOf(customerId, /^customer\.subscription\.created$/)
    expect(completed[0]?.created).toBe(created[0]?.created)
    // The session re-fetches: the row holds Stripe's state, marked with that second.
    await deliver(completed.map((event) => event.id))
    // Were the subscription asked for now, the delivery would fail (and be retried).
    t.emulator.control.injectFault({
      count: 10,
      method: 'GET',
      path: `/v1/subscriptions/${subscriptionId}`,
      status: 503,
    })
    try {
      await deliver(created.map((event) => event.id))
    } finally {
      t.emulator.control.clearFaults()
    }
    await expectTieSettled({
      refetched: completed[0]?.id,
      unchanged: created[0]?.id,
      userId,
      subscriptionId,
    })
  })

  it('asks Stripe when a same-second event disagrees with the stored row', async () => {
    const { userId, customerId, subscriptionId } = await heldSubscription('disagree')
    const created = eventsOf(customerId, /^customer\.subscription\.created$/)[0]
    if (created === undefined) throw new Error('no created event')
    await deliver([created.id])
    // The row of that second says otherwise, as a writer of the same second could have left it.
    await t.db.query(
      "update public.billing_subscriptions set status = 'past_due' where stripe_subscription_id = $1",
      [subscriptionId],
    )
    const sameSecond = { ...created, id: `evt_test_${crypto.randomUUID()}` }
    const response = await t.postEvent(JSON.stringify(sameSecond))
    expect(response.status).toBe(200)
    expect(webhookAckSchema.parse(await response.json()).outcome).toBe('refetched')
    await expectStoredAsStripe(userId, subscriptionId)
    t.emulator.control.resumeWebhooks()
    await t.webhooksSettled()
  })

  it('answers non-2xx on a transient database failure, and the retry applies it once', async () => {
    const { userId, customerId, subscriptionId } = await heldSubscription('transient')
    t.faults.failNext(/insert into "billing_subscriptions"/)
    const publishedBefore = t.harness.published.filter((m) => m.topic === `user:${userId}`).length
    t.emulator.control.resumeWebhooks()
    await t.webhooksSettled()
    expect(t.faults.fired()).toBeGreaterThanOrEqual(1)
    const created = eventsOf(customerId, /^customer\.subscription\.created$/)[0]
    const delivery = t.emulator.control.events().find((e) => e.event.id === created?.id)?.delivery
    expect(delivery?.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 200])
    expect(delivery?.status).toBe('succeeded')
    const ledger = await t.ledger()
    for (const event of eventsOf(customerId))
      expect(
        ledger.filter((row) => row.id === event.id),
        event.type,
      ).toHaveLength(1)
    await expectStoredAsStripe(userId, subscriptionId)
    const entitlementEvents = t.harness.published
      .filter((m) => m.topic === `user:${userId}`)
      .slice(publishedBefore)
      .filter((m) => m.event.type === 'entitlements')
    expect(entitlementEvents).toHaveLength(1)
  })
})

describe('POST /api/billing/webhook: order and duplication', () => {
  it('ends in Stripe’s state whatever the order and duplication of the events', async () => {
    const { browser, userId, customerId, subscriptionId } = await heldSubscription('property')
    // A life: cancel at period end, resume, and days later (the stand-in keeps events 30
    // days) cancel again and change plan in the same second: the last two events tie.
    t.emulator.control.advanceClock(60)
    await t.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    t.emulator.control.advanceClock(60)
    await t.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: false })
    t.emulator.control.advanceClock(10 * 24 * 3600)
    await t.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    const team = (await t.stripe.prices.list({ lookup_keys: ['tessera_team_monthly'] })).data[0]
    const item = (await t.stripe.subscriptions.retrieve(subscriptionId)).items.data[0]
    await t.stripe.subscriptions.update(subscriptionId, {
      items: [{ id: item?.id ?? '', price: team?.id ?? '' }],
      proration_behavior: 'none',
    })
    const ids = eventsOf(customerId).map((event) => event.id)
    expect(ids.length).toBeGreaterThanOrEqual(8)
    const expected = await stripeState(subscriptionId)

    const deliveries = fc
      .tuple(
        fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }),
        fc.array(fc.tuple(fc.constantFrom(...ids), fc.nat()), { maxLength: ids.length }),
      )
      .map(([order, duplicates]) => {
        const sequence = [...order]
        for (const [id, at] of duplicates) sequence.splice(at % (sequence.length + 1), 0, id)
        return sequence
      })
    await fc.assert(
      fc.asyncProperty(deliveries, async (sequence) => {
        await t.db.query('delete from public.billing_subscriptions where user_id = $1', [userId])
        await t.db.query(
          "delete from public.billing_events where id = any(string_to_array($1, ','))",
          [ids.join(',')],
        )
        const results = await t.emulator.control.deliver(sequence)
        expect(results.filter((result) => result.statusCode !== 200)).toEqual([])
        const rows = await t.subscriptionRows(userId)
        expect(rows).toHaveLength(1)
        expect(differences(stateOfRow(rows[0]!), expected)).toEqual([])
        const ledger = (await t.ledger()).filter((row) => ids.includes(row.id))
        expect(ledger.map((row) => row.id).sort()).toEqual([...ids].sort())
      }),
      { numRuns: 30 },
    )
    t.emulator.control.resumeWebhooks()
    await t.webhooksSettled()
    const body = await t.subscriptionOf(browser as TestBrowser)
    expect(body.subscription).toMatchObject({ plan: 'team', status: 'active' })
    expect(body.subscription?.cancelAt).not.toBeNull()
  })
})
