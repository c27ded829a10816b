import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBillingTestApp } from '../../testing/billing.ts'
import type { BillingTestApp } from '../../testing/billing.ts'
import { reconcileBilling } from './reconcile.ts'
import { setSeatQuantity } from './seats.ts'

let t: BillingTestApp
let counter = 0
const email = (name: string) => `${name}-${(counter += 1)}@example.com`

beforeAll(async () => {
  t = await startBillingTestApp()
})

afterAll(async () => {
  await t.close()
})

/** A user on the Team plan, their webhooks applied; returns the ids the steps need. */
async function teamUser(name: string) {
  const { browser, userId } = await t.user(email(name))
  await t.subscribe(browser, 'team')
  await t.webhooksSettled()
  const [row] = await t.subscriptionRows(userId)
  if (row === undefined) throw new Error('no subscription row')
  return { userId, subscriptionId: row.stripe_subscription_id, customerId: row.stripe_customer_id }
}

async function storedQuantity(userId: string): Promise<number | undefined> {
  const [row] = await t.subscriptionRows(userId)
  return row?.quantity
}

/** The stand-in's `customer.subscription.updated` events of a customer, oldest first. */
function updatesOf(customerId: string) {
  return t.emulator.control
    .events()
    .map((entry) => entry.event)
    .filter(
      (event) =>
        event.type === 'customer.subscription.updated' &&
        (event.data.object as { customer?: unknown }).customer === customerId,
    )
}

describe('seats: the stored subscription follows its quantity', () => {
  it('stores the seats a webhook brings', async () => {
    const { userId, subscriptionId } = await teamUser('seats-webhook')
    // A team of one is bought with the plan's minimum of two seats.
    expect(await storedQuantity(userId)).toBe(2)
    await setSeatQuantity(t.stripe, subscriptionId, 3, `seats-${subscriptionId}-3`)
    await t.webhooksSettled()
    expect(await storedQuantity(userId)).toBe(3)
  })

  it('ends with the newer seat count when two quantity updates arrive in reverse order', async () => {
    const { userId, subscriptionId, customerId } = await teamUser('seats-order')
    t.emulator.control.pauseWebhooks()
    try {
      t.emulator.control.advanceClock(60)
      await setSeatQuantity(t.stripe, subscriptionId, 3, `seats-${subscriptionId}-3`)
      t.emulator.control.advanceClock(60)
      await setSeatQuantity(t.stripe, subscriptionId, 4, `seats-${subscriptionId}-4`)
      const [toThree, toFour] = updatesOf(customerId)
      if (toThree === undefined || toFour === undefined) throw new Error('two updates expected')
      expect((toThree.data.previous_attributes as { items: unknown }).items).toBeDefined()

      const results = await t.emulator.control.deliver([toFour.id, toThree.id])
      expect(results.map((result) => result.statusCode)).toEqual([200, 200])
      expect(await storedQuantity(userId)).toBe(4)
      const ledger = await t.ledger()
      expect(ledger.find((entry) => entry.id === toFour.id)?.outcome).toBe('applied')
      expect(ledger.find((entry) => entry.id === toThree.id)?.outcome).toBe('stale')
      // Delivered again (Stripe's retry), both change nothing.
      await t.emulator.control.deliver([toThree.id, toFour.id])
      expect(await storedQuantity(userId)).toBe(4)
    } finally {
      t.emulator.control.resumeWebhooks()
      await t.webhooksSettled()
    }
    expect(await storedQuantity(userId)).toBe(4)
  })

  it('puts back the seat count of a webhook that never came, in billing:reconcile', async () => {
    const { userId, subscriptionId, customerId } = await teamUser('seats-reconcile')
    t.emulator.control.pauseWebhooks()
    try {
      await setSeatQuantity(t.stripe, subscriptionId, 5, `seats-${subscriptionId}-5`)
      expect(await storedQuantity(userId)).toBe(2)
      const { report } = await reconcileBilling({ sql: t.db, stripe: t.stripe })
      const drift = report.drift.find(
        (entry) =>
          entry.subscriptionId === subscriptionId && entry.kind === 'subscription_mismatch',
      )
      expect(drift).toMatchObject({ customerId, fixed: true })
      expect(drift?.fields).toContainEqual({ field: 'quantity', stored: '2', stripe: '5' })
      expect(await storedQuantity(userId)).toBe(5)
      // Five seats for a team of one: reconcile also sets them back to the member count.
      const seats = report.drift.find(
        (entry) => entry.subscriptionId === subscriptionId && entry.kind === 'seat_mismatch',
      )
      expect(seats).toMatchObject({ seats: { quantity: 5, members: 1, target: 2 }, fixed: true })
    } finally {
      t.emulator.control.resumeWebhooks()
      await t.webhooksSettled()
    }
    expect(await storedQuantity(userId)).toBe(2)
  })
})
