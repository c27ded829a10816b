import type { QueryResult, SqlQueryable, SqlValue } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import { describe, expect, it } from 'vitest'
import { queries } from './query.ts'
import { reusableStatement } from './reusable-statement.ts'

/** Records what would have been sent to the database. */
function recorder() {
  const sent: { text: string; params: readonly SqlValue[] }[] = []
  const on: SqlQueryable = {
    query<T>(text: string, params: readonly SqlValue[] = []): Promise<QueryResult<T>> {
      sent.push({ text, params })
      return Promise.resolve({ rows: [], rowCount: 0 })
    },
    exec: () => Promise.resolve(),
  }
  return { on, sent }
}

const settle = (values: { eventId: string; outcome: 'applied'; userId: string | null }) =>
  queries
    .updateTable('billing_events')
    .set({ outcome: values.outcome, user_id: values.userId, applied_at: raw<Date>`now()` })
    .where('id', '=', values.eventId)
    .where('type', '=', 'customer.subscription.updated')

describe('reusableStatement', () => {
  it('sends what Kysely compiles, each run with its own values, built once', async () => {
    let builds = 0
    const statement = reusableStatement((values: Parameters<typeof settle>[0]) => {
      builds += 1
      return settle(values)
    })
    const { on, sent } = recorder()
    const first = { eventId: 'evt_1', outcome: 'applied' as const, userId: 'user-1' }
    const second = { eventId: 'evt_2', outcome: 'applied' as const, userId: null }
    await statement(on, first)
    await statement(on, second)
    expect(builds).toBe(1)
    for (const [index, values] of [first, second].entries()) {
      const expected = settle(values).compile()
      expect(sent[index]).toEqual({ text: expected.sql, params: expected.parameters })
    }
  })

  it('keeps a Date value as the Date it was given', async () => {
    const statement = reusableStatement((values: { id: string; at: Date }) =>
      queries
        .updateTable('billing_subscriptions')
        .set({ version_at: values.at })
        .where('stripe_subscription_id', '=', values.id),
    )
    const { on, sent } = recorder()
    const at = new Date('2026-11-22T05:00:00Z')
    await statement(on, { id: 'sub_1', at })
    expect(sent[0]?.params).toEqual([at, 'sub_1'])
  })

  it('refuses a builder that changes a value before using it', async () => {
    const statement = reusableStatement((values: { eventId: string }) =>
      queries.deleteFrom('billing_events').where('id', '=', `evt_${values.eventId}`),
    )
    await expect(statement(recorder().on, { eventId: '1' })).rejects.toThrow(/changed/)
  })

  it('refuses a builder that leaves a value out', async () => {
    const statement = reusableStatement((_values: { eventId: string; unused: string }) =>
      queries.deleteFrom('billing_events').where('id', '=', 'evt_fixed'),
    )
    await expect(statement(recorder().on, { eventId: '1', unused: 'x' })).rejects.toThrow(
      /eventId, unused/,
    )
  })

  it('refuses a builder that makes an object from a value', async () => {
    const statement = reusableStatement((values: { seconds: number }) =>
      queries
        .deleteFrom('billing_events')
        .where('stripe_created_at', '<', new Date(values.seconds * 1000)),
    )
    await expect(statement(recorder().on, { seconds: 1 })).rejects.toThrow(/only pass/)
  })
})
