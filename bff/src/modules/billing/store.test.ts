import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import {
  recordEventAndLockCustomer,
  saveSubscriptionForEvent,
  subscriptionsOfUser,
} from './store.ts'
import type { SubscriptionState } from './subscription-state.ts'

let sql: Sql
const userId = crypto.randomUUID()
const customerId = 'cus_store_test'

beforeAll(async () => {
  sql = await createBffTestDatabase()
  await sql.query(
    `insert into auth.users (id, aud, role, email, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', 'store@example.test', now(), now())`,
    [userId],
  )
  await sql.query(
    'insert into public.billing_customers (user_id, stripe_customer_id) values ($1, $2)',
    [userId, customerId],
  )
}, databaseSetupTimeout)
afterAll(() => sql.close())

const stateOf = (
  subscriptionId: string,
  plan: 'pro' | 'team',
  quantity = 1,
): SubscriptionState => ({
  stripeSubscriptionId: subscriptionId,
  stripeCustomerId: customerId,
  plan,
  stripePriceId: `price_${plan}`,
  quantity,
  workspaceId: null,
  status: 'active',
  currentPeriodEnd: new Date('2026-12-22T00:00:00Z'),
  cancelAt: null,
  canceledAt: null,
  stripeCreatedAt: new Date('2026-11-22T00:00:00Z'),
})

const eventOf = (id: string, created: number) => ({
  id,
  type: 'customer.subscription.updated',
  created,
})

describe('recordEventAndLockCustomer', () => {
  it('records an event once and reads its customer’s subscriptions only the first time', async () => {
    const event = eventOf('evt_store_once', 1_795_000_000)
    const first = await sql.transaction((tx) =>
      recordEventAndLockCustomer(tx, event, 'sub_store_once', customerId),
    )
    expect(first).toEqual({ recorded: true, customer: { userId, subscriptions: [] } })
    const again = await sql.transaction((tx) =>
      recordEventAndLockCustomer(tx, event, 'sub_store_once', customerId),
    )
    expect(again).toEqual({ recorded: false })
    const { rows } = await sql.query<{ outcome: string }>(
      'select outcome from public.billing_events where id = $1',
      [event.id],
    )
    expect(rows).toEqual([{ outcome: 'received' }])
  })

  it('records the event of a customer nobody knows and says so', async () => {
    const recorded = await sql.transaction((tx) =>
      recordEventAndLockCustomer(
        tx,
        eventOf('evt_store_stranger', 1_795_000_000),
        'sub_x',
        'cus_x',
      ),
    )
    expect(recorded).toEqual({ recorded: true, customer: null })
  })
})

describe('saveSubscriptionForEvent', () => {
  it('refuses to replace a subscription row that changed since the decision read it', async () => {
    const subscriptionId = 'sub_store_moved'
    const firstAt = new Date(1_795_000_100_000)
    const secondAt = new Date(1_795_000_200_000)
    const save = (
      eventId: string,
      plan: 'pro' | 'team',
      versionAt: Date,
      readVersionAt: Date | null,
      quantity = 1,
    ) =>
      sql.transaction(async (tx) => {
        await recordEventAndLockCustomer(
          tx,
          eventOf(eventId, versionAt.getTime() / 1000),
          subscriptionId,
          customerId,
        )
        return saveSubscriptionForEvent(
          tx,
          userId,
          stateOf(subscriptionId, plan, quantity),
          versionAt,
          { id: eventId, outcome: 'applied' },
          readVersionAt,
        )
      })

    expect(await save('evt_store_first', 'pro', firstAt, null)).toBe(true)
    // Decided on "no row yet" while a row is there: nothing is replaced.
    expect(await save('evt_store_blind', 'team', secondAt, null)).toBe(false)
    // Decided on a version that is not the stored one: nothing is replaced either.
    expect(await save('evt_store_old', 'team', secondAt, new Date(firstAt.getTime() - 1000))).toBe(
      false,
    )
    let rows = await subscriptionsOfUser(sql, userId)
    expect(rows.find((row) => row.stripe_subscription_id === subscriptionId)).toMatchObject({
      plan: 'pro',
      version_at: firstAt,
    })
    const { rows: ledger } = await sql.query<{ id: string; outcome: string }>(
      `select id, outcome from public.billing_events where id like 'evt_store_%' and object_id = $1 order by id`,
      [subscriptionId],
    )
    expect(ledger).toEqual([
      { id: 'evt_store_blind', outcome: 'received' },
      { id: 'evt_store_first', outcome: 'applied' },
      { id: 'evt_store_old', outcome: 'received' },
    ])

    // Decided on the stored version: the row is replaced.
    expect(await save('evt_store_second', 'team', secondAt, firstAt, 3)).toBe(true)
    rows = await subscriptionsOfUser(sql, userId)
    expect(rows.find((row) => row.stripe_subscription_id === subscriptionId)).toMatchObject({
      plan: 'team',
      quantity: 3,
      version_at: secondAt,
    })
  })
})
