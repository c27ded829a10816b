import { webhookAckSchema } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { startBillingTestApp } from '../../testing/billing.ts'
import type { BillingTestApp } from '../../testing/billing.ts'
import { differences, stateOf, stateOfRow, stripeSubscriptionSchema } from './subscription-state.ts'
import { createWebhookBatcher } from './webhook-batches.ts'
import type { BatchReport, WebhookBatcherOptions } from './webhook-batches.ts'
import type { BillingChange, WebhookResult } from './webhooks.ts'

let t: BillingTestApp
let counter = 0

beforeAll(async () => {
  t = await startBillingTestApp()
})

afterAll(async () => {
  await t.close()
})

/** A subscription bought with its webhooks held back, plus `updates` later changes. */
async function heldSubscription(name: string, updates = 0) {
  const { browser, userId } = await t.user(`${name}-${(counter += 1)}@example.com`)
  t.emulator.control.pauseWebhooks()
  await t.subscribe(browser, 'pro')
  const { rows } = await t.db.query<{ stripe_customer_id: string }>(
    'select stripe_customer_id from public.billing_customers where user_id = $1',
    [userId],
  )
  const customerId = rows[0]?.stripe_customer_id ?? ''
  const subscriptionId = (await t.stripe.subscriptions.list({ customer: customerId })).data[0]?.id
  if (subscriptionId === undefined) throw new Error('no subscription at Stripe')
  for (let i = 0; i < updates; i++) {
    t.emulator.control.advanceClock(60)
    await t.stripe.subscriptions.update(subscriptionId, {
      cancel_at_period_end: i % 2 === 0,
      metadata: { step: String(i) },
    })
  }
  const events = t.emulator.control
    .events()
    .map((entry) => entry.event)
    .filter((event) => {
      const object = event.data.object as { customer?: unknown; id?: unknown }
      return object.customer === customerId || object.id === customerId
    })
  return { userId, customerId, subscriptionId, events }
}

async function expectStoredAsStripe(userId: string, subscriptionId: string) {
  const row = (await t.subscriptionRows(userId)).find(
    (candidate) => candidate.stripe_subscription_id === subscriptionId,
  )
  expect(row, 'the subscription row').toBeDefined()
  if (row === undefined) return
  const stripe = stateOf(
    stripeSubscriptionSchema.parse(await t.stripe.subscriptions.retrieve(subscriptionId)),
  )
  expect(differences(stateOfRow(row), stripe)).toEqual([])
}

/** A batcher on the test app's database and Stripe, reporting its batches. */
function batcher(onChange?: (change: BillingChange) => void, options: WebhookBatcherOptions = {}) {
  const batches: BatchReport[] = []
  const applier = createWebhookBatcher(
    {
      sql: t.db,
      stripe: t.clients.interactive,
      logger: createLogger({ level: 'silent' }),
      onChange: (_tx, change) => Promise.resolve(onChange?.(change)),
    },
    { ...options, onBatch: (report) => batches.push(report) },
  )
  return { applier, batches }
}

/** An event nobody handles: it holds the batcher busy so that what follows forms one batch. */
const filler = (): Stripe.Event =>
  ({
    id: `evt_filler_${crypto.randomUUID()}`,
    object: 'event',
    type: 'charge.refunded',
    created: Math.floor(Date.now() / 1000),
    data: { object: {} },
  }) as unknown as Stripe.Event

const settle = (results: Promise<WebhookResult>[]) => Promise.allSettled(results)

describe('webhook batches', () => {
  it('applies concurrent deliveries of one event once, in one batch', async () => {
    const { userId, subscriptionId, events } = await heldSubscription('batch-dupes', 2)
    const { applier, batches } = batcher()
    const first = applier.apply(filler())
    const deliveries = events.flatMap((event) => [event, event, event])
    const results = await Promise.all([first, ...deliveries.map((e) => applier.apply(e))])
    await applier.settled()
    expect(batches.some((batch) => batch.size > 1 && !batch.alone)).toBe(true)
    for (const event of events) {
      const outcomes = results.slice(1).filter((_, i) => deliveries[i]?.id === event.id)
      expect(
        outcomes.filter((r) => r.outcome !== 'duplicate'),
        event.type,
      ).toHaveLength(1)
    }
    const ledger = await t.ledger()
    for (const event of events) expect(ledger.filter((row) => row.id === event.id)).toHaveLength(1)
    await expectStoredAsStripe(userId, subscriptionId)
  })

  it('converges on Stripe’s state whatever the order within one batch', async () => {
    const { userId, subscriptionId, events } = await heldSubscription('batch-order', 3)
    const { applier, batches } = batcher()
    const first = applier.apply(filler())
    const results = await Promise.all([first, ...[...events].reverse().map(applier.apply)])
    await applier.settled()
    expect(batches.find((batch) => batch.size === events.length)?.alone).toBe(false)
    expect(results.map((r) => r.outcome)).not.toContain('duplicate')
    await expectStoredAsStripe(userId, subscriptionId)
    const ledger = await t.ledger()
    const outcomes = events.map((e) => ledger.find((row) => row.id === e.id)?.outcome)
    expect(outcomes).not.toContain('received')
  })

  it('answers a failing delivery with its error and applies the rest of its batch', async () => {
    const good = await heldSubscription('batch-good')
    const bad = await heldSubscription('batch-bad')
    const { applier, batches } = batcher((change) => {
      if (change.userId === bad.userId) throw new Error('the live event could not be written')
    })
    const first = applier.apply(filler())
    const deliveries = [...good.events, ...bad.events]
    const results = await settle([first, ...deliveries.map(applier.apply)])
    await applier.settled()
    // The batch failed as a whole and was applied one delivery at a time.
    expect(batches.find((batch) => batch.size === deliveries.length)?.alone).toBe(true)
    const ledger = await t.ledger()
    deliveries.forEach((event, i) => {
      const result = results[i + 1]
      if (good.events.includes(event)) {
        expect(result?.status, event.type).toBe('fulfilled')
        expect(ledger.some((row) => row.id === event.id)).toBe(true)
      } else if (result?.status === 'rejected') {
        // Nothing of a failed delivery is kept: Stripe's retry finds no ledger row.
        expect(ledger.some((row) => row.id === event.id)).toBe(false)
      }
    })
    expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThan(0)
    await expectStoredAsStripe(good.userId, good.subscriptionId)
    expect(await t.subscriptionRows(bad.userId)).toHaveLength(0)
  })

  it('records the deliveries that change nothing in one statement, each event once', async () => {
    const statements: string[] = []
    const sql: Sql = {
      ...t.db,
      transaction: (fn, options) =>
        t.db.transaction(
          (tx) =>
            fn({
              ...tx,
              query: (text, params) => {
                statements.push(text)
                return tx.query(text, params)
              },
            }),
          options,
        ),
    }
    const applier = createWebhookBatcher({
      sql,
      stripe: t.clients.interactive,
      logger: createLogger({ level: 'silent' }),
    })
    const first = applier.apply(filler())
    const events = Array.from({ length: 5 }, filler)
    const deliveries = [...events, events[0]!, events[3]!, events[0]!]
    const results = await Promise.all([first, ...deliveries.map((e) => applier.apply(e))])
    await applier.settled()
    expect(results.slice(1).map((r) => r.outcome)).toEqual([
      ...events.map(() => 'ignored'),
      'duplicate',
      'duplicate',
      'duplicate',
    ])
    expect(statements).toHaveLength(1)
    const ledger = await t.ledger()
    for (const event of events) {
      const rows = ledger.filter((row) => row.id === event.id)
      expect(rows.map((row) => row.outcome)).toEqual(['ignored'])
    }
  })

  it('answers a delivery as soon as nothing is in flight, alone', async () => {
    const { applier, batches } = batcher()
    const result = await applier.apply(filler())
    expect(result.outcome).toBe('ignored')
    await applier.settled()
    expect(batches).toEqual([{ size: 1, alone: false }])
  })

  it('takes the same event posted five times at once exactly once through the route', async () => {
    const { userId, subscriptionId, events } = await heldSubscription('batch-route')
    const created = events.find((event) => event.type === 'customer.subscription.created')
    if (created === undefined) throw new Error('no created event')
    const payload = JSON.stringify(created)
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => t.postEvent(payload).then((r) => r.json())),
    )
    const outcomes = responses.map((body) => webhookAckSchema.parse(body).outcome)
    expect(outcomes.filter((outcome) => outcome !== 'duplicate')).toEqual(['applied'])
    await expectStoredAsStripe(userId, subscriptionId)
  })
})
