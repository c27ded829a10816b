import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withUser } from '../../platform/db/with-user.ts'
import { startBillingTestApp } from '../../testing/billing.ts'
import type { BillingTestApp } from '../../testing/billing.ts'

let t: BillingTestApp

beforeAll(async () => {
  t = await startBillingTestApp()
})

afterAll(async () => {
  await t.close()
})

const claimsOf = (userId: string) => ({ sub: userId, role: 'authenticated' })

describe('billing tables under RLS', () => {
  it('let users read their own customer and subscription, nobody else’s, and write nothing', async () => {
    const subscriber = await t.user('rls-subscriber@example.com')
    const other = await t.user('rls-other@example.com')
    await t.subscribe(subscriber.browser)
    await t.webhooksSettled()

    const read = (reader: string, table: string) =>
      withUser(t.db, claimsOf(reader), async (tx) =>
        (await tx.query<{ user_id: string }>(`select user_id from public.${table}`)).rows.map(
          (row) => row.user_id,
        ),
      )
    expect(await read(subscriber.userId, 'billing_subscriptions')).toEqual([subscriber.userId])
    expect(await read(subscriber.userId, 'billing_customers')).toEqual([subscriber.userId])
    expect(await read(other.userId, 'billing_subscriptions')).toEqual([])
    expect(await read(other.userId, 'billing_customers')).toEqual([])

    await expect(
      withUser(t.db, claimsOf(subscriber.userId), (tx) =>
        tx.query("update public.billing_subscriptions set plan = 'team'"),
      ),
    ).rejects.toThrow(/permission denied/)
    await expect(
      withUser(t.db, claimsOf(other.userId), (tx) =>
        tx.query('insert into public.billing_customers (user_id) values ($1)', [other.userId]),
      ),
    ).rejects.toThrow(/permission denied/)
    await expect(
      withUser(t.db, claimsOf(subscriber.userId), (tx) =>
        tx.query('select id from public.billing_events'),
      ),
    ).rejects.toThrow(/permission denied/)
  })
})
