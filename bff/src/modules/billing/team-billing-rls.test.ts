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

describe('a team’s subscription under RLS', () => {
  it('shows owners and admins the row, members the plan, status and seats, strangers nothing', async () => {
    const buyer = await t.user('team-rls-owner@example.com')
    const workspaceId = await t.createTeam(buyer.browser, 'RLS')
    await t.subscribe(buyer.browser, 'team', undefined, { workspaceId })
    await t.webhooksSettled()
    const admin = await t.user('team-rls-admin@example.com')
    const member = await t.user('team-rls-member@example.com')
    const stranger = await t.user('team-rls-stranger@example.com')
    for (const [person, role] of [
      [admin, 'admin'],
      [member, 'member'],
    ] as const) {
      await t.db.query(
        'insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)',
        [workspaceId, person.userId, role],
      )
    }

    const rows = (reader: string) =>
      withUser(t.db, claimsOf(reader), async (tx) =>
        (
          await tx.query<{ workspace_id: string; current_period_end: Date | null }>(
            'select workspace_id, current_period_end from public.billing_subscriptions where workspace_id = $1',
            [workspaceId],
          )
        ).rows.map((row) => row.workspace_id),
      )
    expect(await rows(buyer.userId)).toEqual([workspaceId])
    expect(await rows(admin.userId)).toEqual([workspaceId])
    expect(await rows(member.userId)).toEqual([])
    expect(await rows(stranger.userId)).toEqual([])

    const plan = (reader: string) =>
      withUser(t.db, claimsOf(reader), async (tx) =>
        (await tx.query('select * from public.workspace_subscription($1)', [workspaceId])).rows.map(
          (row) => Object.keys(row).sort(),
        ),
      )
    const columns = ['plan', 'quantity', 'status', 'stripe_created_at']
    expect(await plan(member.userId)).toEqual([columns])
    expect(await plan(admin.userId)).toEqual([columns])
    expect(await plan(stranger.userId)).toEqual([])

    // Nobody moves a subscription to another workspace, whatever their role.
    for (const reader of [buyer.userId, admin.userId, member.userId]) {
      await expect(
        withUser(t.db, claimsOf(reader), (tx) =>
          tx.query('update public.billing_subscriptions set workspace_id = null'),
        ),
      ).rejects.toThrow(/permission denied/)
    }
    // A visitor without a session may not even ask.
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query("select set_config('role', 'anon', true)")
        await tx.query('select * from public.workspace_subscription($1)', [workspaceId])
      }),
    ).rejects.toThrow(/permission denied/)
  })
})
