import type { Entitlements, SeatPreview, SubscriptionResponse } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MailMessage } from '../../platform/mail.ts'
import { startBillingTestApp } from '../../testing/billing.ts'
import type { BillingTestApp } from '../../testing/billing.ts'
import { waitFor } from '../../testing/app.ts'
import { jsonOf } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { reconcileBilling } from './reconcile.ts'

let t: BillingTestApp
const mails: MailMessage[] = []
let counter = 0
const email = (name: string) => `${name}-${(counter += 1)}@example.com`

beforeAll(async () => {
  t = await startBillingTestApp({
    deps: {
      workspaces: {
        mail: {
          send: (message) => {
            mails.push(message)
            return Promise.resolve({ sent: true, id: `mail-${mails.length}` })
          },
        },
      },
    },
  })
})

afterAll(async () => {
  await t.close()
})

const codeOf = async (response: Response) =>
  (await jsonOf<{ error: { code: string; details?: Record<string, unknown> } }>(response)).error

async function quantityOf(subscriptionId: string): Promise<number | undefined> {
  const { rows } = await t.db.query<{ quantity: number }>(
    'select quantity from public.billing_subscriptions where stripe_subscription_id = $1',
    [subscriptionId],
  )
  return rows[0]?.quantity
}

/** An owner with a team on the Team plan (two seats), webhooks applied. */
async function paidTeam(name: string) {
  const owner = await t.user(email(name))
  const workspaceId = await t.createTeam(owner.browser, name)
  await t.subscribe(owner.browser, 'team', undefined, { workspaceId })
  await t.webhooksSettled()
  const [row] = await t.subscriptionRows(owner.userId)
  if (row === undefined) throw new Error('no subscription row')
  return { owner, workspaceId, subscriptionId: row.stripe_subscription_id, row }
}

const invite = (browser: TestBrowser, workspaceId: string, to: string, extra = {}) =>
  browser.send('POST', `/api/workspaces/${workspaceId}/invites`, { email: to, ...extra })

/** Signs up the invited address and accepts its newest invite. */
async function join(to: string) {
  const message = [...mails].reverse().find((mail) => mail.to === to)
  const token = /\/invites\/([A-Za-z0-9_-]{43})/.exec(message?.text ?? '')?.[1]
  if (token === undefined) throw new Error(`no invite email to ${to}`)
  const user = await t.user(to)
  const accepted = await user.browser.send('POST', `/api/invites/${token}/accept`)
  expect(accepted.status, await accepted.clone().text()).toBe(200)
  return user
}

const meOf = async (browser: TestBrowser) =>
  jsonOf<{
    user: { id: string }
    entitlements: Entitlements
    workspace?: { id: string; kind: string; role: string }
  }>(await browser.get('/api/me'))

describe('POST /api/billing/checkout for a team', () => {
  it('refuses the Team plan in a personal workspace and Pro for a team', async () => {
    const { browser } = await t.user(email('personal-team'))
    const team = await browser.send('POST', '/api/billing/checkout', { plan: 'team' })
    expect(team.status).toBe(409)
    expect(await codeOf(team)).toMatchObject({
      code: 'plan_not_for_workspace',
      details: { reason: 'team_workspace_required' },
    })
    const workspaceId = await t.createTeam(browser)
    const pro = await browser.send('POST', '/api/billing/checkout', { plan: 'pro', workspaceId })
    expect(await codeOf(pro)).toMatchObject({
      code: 'plan_not_for_workspace',
      details: { reason: 'personal_plan' },
    })
  })

  it('refuses a member, a stranger and a bad workspace id; a team pays once', async () => {
    const { owner, workspaceId } = await paidTeam('rules')
    const stranger = await t.user(email('stranger'))
    const notMine = await stranger.browser.send('POST', '/api/billing/checkout', {
      plan: 'team',
      workspaceId,
    })
    expect(notMine.status).toBe(404)
    const bad = await stranger.browser.send('POST', '/api/billing/checkout', {
      plan: 'team',
      workspaceId: 'nope',
    })
    expect(bad.status).toBe(422)
    const again = await owner.browser.send('POST', '/api/billing/checkout', {
      plan: 'team',
      workspaceId,
    })
    expect((await codeOf(again)).code).toBe('already_subscribed')
    const to = email('plain-member')
    expect((await invite(owner.browser, workspaceId, to)).status).toBe(201)
    const member = await join(to)
    const refused = await member.browser.send('POST', '/api/billing/checkout', {
      plan: 'team',
      workspaceId,
    })
    expect(refused.status).toBe(403)
    expect((await codeOf(refused)).code).toBe('workspace_role_required')
  })
})

describe('seats follow members', () => {
  it('asks to confirm an extra seat, charges it when the invitee joins, and drops it on removal', async () => {
    const { owner, workspaceId, subscriptionId } = await paidTeam('seats')
    expect(await quantityOf(subscriptionId)).toBe(2)
    const first = email('first')
    const second = email('second')
    expect((await invite(owner.browser, workspaceId, first)).status).toBe(201)
    // Owner + one pending + this one: three people for two paid seats.
    const asked = await invite(owner.browser, workspaceId, second)
    expect(asked.status).toBe(409)
    const refusal = await codeOf(asked)
    expect(refusal.code).toBe('seat_confirmation_required')
    expect(refusal.details).toMatchObject({ seats: 2, needed: 3 })
    const preview = refusal.details?.preview as { prorationAmount: number; currency: string }
    expect(preview.currency).toBe('usd')
    expect(preview.prorationAmount).toBeGreaterThan(0)
    const confirmed = await invite(owner.browser, workspaceId, second, { confirmExtraSeat: true })
    expect(confirmed.status).toBe(201)
    // Not charged at invite time.
    await t.webhooksSettled()
    expect(await quantityOf(subscriptionId)).toBe(2)

    await join(first)
    const member = await join(second)
    await t.webhooksSettled()
    expect(await quantityOf(subscriptionId)).toBe(3)

    // The member works in the team: its pool is the plan's tokens × 3 seats.
    const me = await meOf(member.browser)
    expect(me.workspace).toMatchObject({ id: workspaceId, kind: 'team', role: 'member' })
    expect(me.entitlements).toMatchObject({
      plan: 'team',
      monthlyTokens: 5_000_000 * 3,
      workspace: { id: workspaceId, kind: 'team', role: 'member', seats: 3 },
    })
    // Members see the plan and its status, no billing details.
    const seen = await jsonOf<SubscriptionResponse>(
      await member.browser.get('/api/billing/subscription'),
    )
    expect(seen.subscription).toMatchObject({ plan: 'team', status: 'active', seats: 3 })
    expect(seen.subscription?.currentPeriodEnd).toBeNull()
    const owners = await jsonOf<SubscriptionResponse>(
      await owner.browser.get('/api/billing/subscription'),
    )
    expect(owners.subscription?.currentPeriodEnd).not.toBeNull()

    const removed = await owner.browser.send(
      'DELETE',
      `/api/workspaces/${workspaceId}/members/${me.user.id}`,
    )
    expect(removed.status).toBe(204)
    await t.webhooksSettled()
    expect(await quantityOf(subscriptionId)).toBe(2)
    // Every member heard of the new seats.
    const told = t.harness.published.filter(
      (message) =>
        message.event.type === 'entitlements' &&
        (message.event.data as { entitlements: Entitlements }).entitlements.workspace?.seats === 2,
    )
    expect(told.length).toBeGreaterThanOrEqual(2)
  })

  it('refuses a confirmation that is not a yes or no, and a member’s invite with one', async () => {
    const { owner, workspaceId } = await paidTeam('confirm-input')
    const bad = await invite(owner.browser, workspaceId, email('x'), { confirmExtraSeat: 'yes' })
    expect(bad.status).toBe(422)
    const to = email('confirm-member')
    expect((await invite(owner.browser, workspaceId, to)).status).toBe(201)
    const member = await join(to)
    const byMember = await invite(member.browser, workspaceId, email('y'), {
      confirmExtraSeat: true,
    })
    expect(byMember.status).toBe(403)
  })

  it('reports the personal workspace on /api/me for a new user', async () => {
    const { browser } = await t.user(email('me-personal'))
    const me = await meOf(browser)
    expect(me.workspace).toMatchObject({ kind: 'personal', role: 'owner' })
    expect(me.entitlements.workspace).toMatchObject({
      id: me.workspace?.id,
      kind: 'personal',
      seats: 1,
    })
  })

  it('retries a seat change Stripe failed, and applies it once', async () => {
    const { owner, workspaceId, subscriptionId, row } = await paidTeam('retry')
    const to = email('retry-member')
    const to2 = email('retry-member2')
    expect((await invite(owner.browser, workspaceId, to)).status).toBe(201)
    expect((await invite(owner.browser, workspaceId, to2, { confirmExtraSeat: true })).status).toBe(
      201,
    )
    await join(to)
    // Every network try of the first attempt fails (the SDK's own retries too); the second
    // attempt, with the same key, goes through.
    t.emulator.control.injectFault({
      count: 3,
      method: 'POST',
      path: '/v1/subscription_items',
      status: 503,
    })
    await join(to2)
    // The retry runs behind the accepted invite, after a short back-off.
    await waitFor(
      async () => {
        await t.webhooksSettled()
        return (await quantityOf(subscriptionId)) === 3 ? true : undefined
      },
      { what: 'the retried seat change', timeoutMs: 15_000 },
    )
    const updates = t.emulator.control
      .events()
      .map((entry) => entry.event)
      .filter(
        (event) =>
          event.type === 'customer.subscription.updated' &&
          (event.data.object as { customer?: unknown }).customer === row.stripe_customer_id,
      )
    expect(updates).toHaveLength(1)
  })
})

describe('GET /api/billing/seats/preview', () => {
  it('shows owners the next invoice with its proration lines, and refuses members and bad input', async () => {
    const { owner, workspaceId } = await paidTeam('preview')
    const response = await owner.browser.get('/api/billing/seats/preview?quantity=3')
    expect(response.status, await response.clone().text()).toBe(200)
    const preview = await jsonOf<SeatPreview>(response)
    expect(preview).toMatchObject({ seats: 2, quantity: 3, members: 1, currency: 'usd' })
    expect(preview.lines.some((line) => line.proration)).toBe(true)
    expect(preview.nextInvoiceTotal).toBeGreaterThan(0)
    for (const query of ['quantity=0', 'quantity=abc', 'quantity=2.5', '', 'quantity=3&x=1']) {
      const bad = await owner.browser.get(`/api/billing/seats/preview?${query}`)
      expect(bad.status, query).toBe(422)
    }

    const to = email('preview-member')
    const to2 = email('preview-member2')
    expect((await invite(owner.browser, workspaceId, to)).status).toBe(201)
    expect((await invite(owner.browser, workspaceId, to2, { confirmExtraSeat: true })).status).toBe(
      201,
    )
    const member = await join(to)
    await join(to2)
    await t.webhooksSettled()
    // Fewer seats than members: refused, never sent to Stripe.
    const below = await owner.browser.get('/api/billing/seats/preview?quantity=2')
    expect(below.status).toBe(422)
    const asMember = await member.browser.get('/api/billing/seats/preview?quantity=4')
    expect(asMember.status).toBe(403)
  })
})

describe('team subscriptions in webhooks and reconcile', () => {
  it('converges on the workspace and seats when the events arrive in reverse order', async () => {
    const owner = await t.user(email('order'))
    const workspaceId = await t.createTeam(owner.browser, 'Order')
    t.emulator.control.pauseWebhooks()
    try {
      await t.subscribe(owner.browser, 'team', undefined, { workspaceId })
      const [created] = t.emulator.control
        .events()
        .map((entry) => entry.event)
        .filter(
          (event) =>
            event.type === 'customer.subscription.created' &&
            (event.data.object as { metadata?: Record<string, string> }).metadata?.workspace_id ===
              workspaceId,
        )
      if (created === undefined) throw new Error('no customer.subscription.created')
      const subscriptionId = (created.data.object as { id: string }).id
      t.emulator.control.advanceClock(60)
      await t.stripe.subscriptionItems.update(
        (await t.stripe.subscriptions.retrieve(subscriptionId)).items.data[0]?.id ?? '',
        { quantity: 4, proration_behavior: 'create_prorations' },
      )
      const ids = t.emulator.control
        .events()
        .map((entry) => entry.event)
        .filter((event) => JSON.stringify(event.data.object).includes(subscriptionId))
        .map((event) => event.id)
      await t.emulator.control.deliver([...ids].reverse())
      const [row] = await t.subscriptionRows(owner.userId)
      expect(row).toMatchObject({ workspace_id: workspaceId, quantity: 4, plan: 'team' })
    } finally {
      t.emulator.control.resumeWebhooks()
      await t.webhooksSettled()
    }
    const [row] = await t.subscriptionRows(owner.userId)
    expect(row).toMatchObject({ workspace_id: workspaceId, quantity: 4 })
  })

  it('stores no workspace for metadata naming one that does not exist', async () => {
    const { owner, subscriptionId } = await paidTeam('ghost')
    const subscription = await t.stripe.subscriptions.retrieve(subscriptionId)
    const event = {
      id: `evt_ghost_${counter}`,
      object: 'event',
      type: 'customer.subscription.updated',
      created: t.emulator.control.now() + 120,
      data: {
        object: {
          ...subscription,
          metadata: { ...subscription.metadata, workspace_id: crypto.randomUUID() },
        },
      },
    }
    const response = await t.postEvent(JSON.stringify(event))
    expect(await jsonOf(response)).toMatchObject({ outcome: 'applied' })
    const [row] = await t.subscriptionRows(owner.userId)
    expect(row?.workspace_id).toBeNull()
  })

  it('reports seats that differ from the member count as drift, and fixes them', async () => {
    const { owner, workspaceId, subscriptionId } = await paidTeam('drift')
    // Two people joined where no seat change ran (another replica crashed, say).
    for (const label of ['drift-a', 'drift-b']) {
      const person = await t.user(email(label))
      await t.db.query(
        `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'member')`,
        [workspaceId, person.userId],
      )
    }
    const dry = await reconcileBilling({ sql: t.db, stripe: t.stripe }, { dryRun: true })
    expect(dry.report.drift).toContainEqual(
      expect.objectContaining({
        kind: 'seat_mismatch',
        subscriptionId,
        workspaceId,
        seats: { quantity: 2, members: 3, target: 3 },
        fixed: false,
      }),
    )
    const { report } = await reconcileBilling({ sql: t.db, stripe: t.stripe })
    expect(report.drift).toContainEqual(
      expect.objectContaining({ kind: 'seat_mismatch', subscriptionId, fixed: true }),
    )
    await t.webhooksSettled()
    expect(await quantityOf(subscriptionId)).toBe(3)
    const again = await reconcileBilling({ sql: t.db, stripe: t.stripe })
    expect(again.report.drift.filter((item) => item.subscriptionId === subscriptionId)).toEqual([])
    expect(owner.userId).toBeTruthy()
  })
})
