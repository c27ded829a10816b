import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { previousAttributes } from './engine.ts'
import { PRO, TEAM, startStand, subscribe, waitFor, type Stand } from './test-support.ts'

let stand: Stand | null = null
afterEach(async () => {
  await stand?.close()
  stand = null
})

async function open(): Promise<Stand> {
  stand = await startStand()
  return stand
}

function periodEnd(sub: Stripe.Subscription): number {
  const end = sub.items.data[0]?.current_period_end
  if (end === undefined) throw new Error('subscription has no item')
  return end
}

/** Moves the emulated clock just past `timestamp`. */
function advancePast(s: Stand, timestamp: number): void {
  s.emulator.control.advanceClock(Math.max(0, timestamp - s.emulator.control.now() + 1))
}

async function delivered(s: Stand, type: string, count = 1): Promise<Stripe.Event[]> {
  return waitFor(() => {
    const events = s.delivered(type)
    return events.length >= count ? events : undefined
  }, `${count} × ${type}`)
}

async function priceId(s: Stand, lookupKey: string): Promise<string> {
  const [price] = (await s.stripe.prices.list({ lookup_keys: [lookupKey] })).data
  if (!price) throw new Error(`no price ${lookupKey}`)
  return price.id
}

describe('renewals', () => {
  it('renews at the period end with a new paid invoice and a new period', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    const firstEnd = periodEnd(subscription)
    advancePast(s, firstEnd)
    const renewed = await s.stripe.subscriptions.retrieve(subscription.id)
    expect(renewed.status).toBe('active')
    expect(renewed.items.data[0]?.current_period_start).toBe(firstEnd)
    expect(periodEnd(renewed)).toBeGreaterThan(firstEnd + 27 * 86_400)
    const invoices = await s.stripe.invoices.list({ subscription: subscription.id })
    expect(invoices.data.map((i) => [i.billing_reason, i.status, i.amount_paid])).toEqual([
      ['subscription_cycle', 'paid', 1500],
      ['subscription_create', 'paid', 1500],
    ])
    const [updated] = await delivered(s, 'customer.subscription.updated')
    expect(updated?.data.previous_attributes).toHaveProperty('items')
    expect(updated?.data.previous_attributes).toHaveProperty('latest_invoice')
  })

  it('runs one renewal per period when the clock jumps several months', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    s.emulator.control.advanceClock(95 * 86_400)
    const invoices = await s.stripe.invoices.list({ subscription: subscription.id })
    expect(invoices.data).toHaveLength(4)
  })

  it('charges 4000 0000 0000 0341 once, then fails the renewal: past_due and invoice.payment_failed', async () => {
    const s = await open()
    const { subscription } = await subscribe(s, { card: '4000 0000 0000 0341' })
    expect(subscription.status).toBe('active')
    advancePast(s, periodEnd(subscription))
    const after = await s.stripe.subscriptions.retrieve(subscription.id, {
      expand: ['latest_invoice'],
    })
    expect(after.status).toBe('past_due')
    expect(after.latest_invoice).toMatchObject({ status: 'open', attempt_count: 1, amount_paid: 0 })
    const [failed] = await delivered(s, 'invoice.payment_failed')
    expect(failed?.data.object).toMatchObject({
      object: 'invoice',
      parent: { subscription_details: { subscription: subscription.id } },
    })
    const updates = await delivered(s, 'customer.subscription.updated')
    expect(updates.at(-1)?.data.previous_attributes).toMatchObject({ status: 'active' })
  })

  it('raises StripeCardError when an unpaid invoice is retried with the failing card', async () => {
    const s = await open()
    const { subscription } = await subscribe(s, { card: '4000000000000341' })
    advancePast(s, periodEnd(subscription))
    const [open_] = (
      await s.stripe.invoices.list({ subscription: subscription.id, status: 'open' })
    ).data
    const error = await s.stripe.invoices.pay(open_?.id ?? '').then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError)
    expect((error as Stripe.errors.StripeCardError).code).toBe('card_declined')
    expect((error as Stripe.errors.StripeCardError).decline_code).toBe('generic_decline')
  })
})

describe('cancel and resume', () => {
  it('cancels at period end, resumes, cancels again and ends at the period end', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    const end = periodEnd(subscription)

    const canceling = await s.stripe.subscriptions.update(subscription.id, {
      cancel_at_period_end: true,
    })
    expect(canceling).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: end,
    })
    expect(canceling.canceled_at).toEqual(expect.any(Number))

    const resumed = await s.stripe.subscriptions.update(subscription.id, {
      cancel_at_period_end: false,
    })
    expect(resumed).toMatchObject({
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
    })

    await s.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true })
    s.emulator.control.advanceClock(Math.max(0, end - s.emulator.control.now() - 60))
    expect((await s.stripe.subscriptions.retrieve(subscription.id)).status).toBe('active')
    advancePast(s, end)
    const ended = await s.stripe.subscriptions.retrieve(subscription.id)
    expect(ended).toMatchObject({ status: 'canceled', ended_at: end })
    const [deleted] = await delivered(s, 'customer.subscription.deleted')
    expect(deleted?.data.object).toMatchObject({ id: subscription.id, status: 'canceled' })
    expect(await s.stripe.invoices.list({ subscription: subscription.id })).toMatchObject({
      data: [{}],
    })

    const updates = await delivered(s, 'customer.subscription.updated', 3)
    expect(
      updates.map(
        (e) => (e.data.previous_attributes as Partial<Stripe.Subscription>).cancel_at_period_end,
      ),
    ).toEqual([false, true, false])
  })

  it('cancels at once with DELETE and lists it only with status=all', async () => {
    const s = await open()
    const { customer, subscription } = await subscribe(s)
    const canceled = await s.stripe.subscriptions.cancel(subscription.id)
    expect(canceled.status).toBe('canceled')
    expect((await s.stripe.subscriptions.list({ customer: customer.id })).data).toEqual([])
    const all = await s.stripe.subscriptions.list({ customer: customer.id, status: 'all' })
    expect(all.data.map((sub) => sub.id)).toEqual([subscription.id])
    await delivered(s, 'customer.subscription.deleted')
  })

  it('lets a canceled subscription change only its metadata', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    await s.stripe.subscriptions.cancel(subscription.id)
    const error = await s.stripe.subscriptions
      .update(subscription.id, { cancel_at_period_end: false })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    const tagged = await s.stripe.subscriptions.update(subscription.id, {
      metadata: { note: 'churned' },
    })
    expect(tagged.metadata).toMatchObject({ note: 'churned' })
  })

  it('cancels a deleted customer’s subscriptions', async () => {
    const s = await open()
    const { customer, subscription } = await subscribe(s)
    await s.stripe.customers.del(customer.id)
    expect((await s.stripe.subscriptions.retrieve(subscription.id)).status).toBe('canceled')
  })
})

describe('change of plan', () => {
  it('moves the item to the new price and reports the old items', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    const team = await priceId(s, TEAM)
    const item = subscription.items.data[0]
    const changed = await s.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item?.id ?? '', price: team }],
      proration_behavior: 'create_prorations',
    })
    expect(changed.items.data.map((i) => [i.id, i.price.lookup_key])).toEqual([[item?.id, TEAM]])
    expect(periodEnd(changed)).toBe(periodEnd(subscription))
    const [update] = await delivered(s, 'customer.subscription.updated')
    const previous = update?.data.previous_attributes as {
      items?: { data: Stripe.SubscriptionItem[] }
    }
    expect(previous.items?.data[0]?.price.lookup_key).toBe(PRO)
  })

  it('bills the prorated difference at once with always_invoice', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    const team = await priceId(s, TEAM)
    // Pro at $15 for one seat, to Team at $15 a seat for three: $30 more a month.
    await s.stripe.subscriptions.update(subscription.id, {
      items: [{ id: subscription.items.data[0]?.id ?? '', price: team, quantity: 3 }],
      proration_behavior: 'always_invoice',
    })
    const [latest] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    expect(latest?.billing_reason).toBe('subscription_update')
    expect(latest?.status).toBe('paid')
    expect(latest?.amount_paid).toBeGreaterThan(2900)
    expect(latest?.amount_paid).toBeLessThanOrEqual(3000)
  })

  it('refuses an item id that is not on the subscription', async () => {
    const s = await open()
    const { subscription } = await subscribe(s)
    const error = await s.stripe.subscriptions
      .update(subscription.id, { items: [{ id: 'si_other', price: await priceId(s, TEAM) }] })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect((error as Stripe.errors.StripeError).param).toBe('items[0][id]')
  })
})

describe('trials', () => {
  it('starts trialing, warns three days before the end, then bills and becomes active', async () => {
    const s = await open()
    const { subscription, session } = await subscribe(s, { trialDays: 14 })
    expect(subscription).toMatchObject({ status: 'trialing' })
    expect(session.payment_status).toBe('no_payment_required')
    expect(subscription.trial_end).toBe(periodEnd(subscription))
    s.emulator.control.advanceClock(11 * 86_400 + 60)
    await delivered(s, 'customer.subscription.trial_will_end')
    advancePast(s, subscription.trial_end ?? 0)
    const active = await s.stripe.subscriptions.retrieve(subscription.id)
    expect(active.status).toBe('active')
    const invoices = await s.stripe.invoices.list({ subscription: subscription.id })
    expect(invoices.data.map((i) => i.amount_paid)).toEqual([1500, 0])
  })

  it('goes past_due when the trial ends on a card that fails', async () => {
    const s = await open()
    const { subscription } = await subscribe(s, { trialDays: 7, card: '4000000000000341' })
    advancePast(s, subscription.trial_end ?? 0)
    expect((await s.stripe.subscriptions.retrieve(subscription.id)).status).toBe('past_due')
  })
})

describe('checkout sessions', () => {
  it('expires an unpaid session after 24 hours', async () => {
    const s = await open()
    const session = await s.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: await priceId(s, PRO), quantity: 1 }],
      success_url: 'http://app.test/ok',
    })
    expect(session).toMatchObject({
      status: 'open',
      payment_status: 'unpaid',
      mode: 'subscription',
    })
    s.emulator.control.advanceClock(24 * 60 * 60 + 1)
    const expired = await s.stripe.checkout.sessions.retrieve(session.id)
    expect(expired).toMatchObject({ status: 'expired', url: null })
    await delivered(s, 'checkout.session.expired')
  })

  it('expands nested ids and includes line items on request', async () => {
    const s = await open()
    const { session } = await subscribe(s)
    const expanded = await s.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['subscription.latest_invoice', 'customer', 'line_items'],
    })
    const sub = expanded.subscription as Stripe.Subscription
    expect(sub.latest_invoice).toMatchObject({ object: 'invoice', status: 'paid' })
    expect(expanded.customer).toMatchObject({ object: 'customer', email: 'ada@example.com' })
    expect(
      expanded.line_items?.data.map((item) => [item.price?.lookup_key, item.quantity]),
    ).toEqual([[PRO, 1]])
    const plain = await s.stripe.checkout.sessions.retrieve(session.id)
    expect(typeof plain.subscription).toBe('string')
    expect(plain.line_items).toBeUndefined()
  })

  it('supports only subscription mode, and says so', async () => {
    const s = await open()
    const error = await s.stripe.checkout.sessions
      .create({
        mode: 'payment',
        line_items: [{ price: await priceId(s, PRO), quantity: 1 }],
        success_url: 'http://x',
      })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect((error as Stripe.errors.StripeError).param).toBe('mode')
  })
})

describe('previousAttributes', () => {
  it('keeps the old value of changed fields only, one level down in objects', () => {
    expect(
      previousAttributes(
        { a: 1, b: { c: 1, d: 2 }, e: 'same', f: { object: 'list', data: [1] } },
        { a: 2, b: { c: 1, d: 3 }, e: 'same', f: { object: 'list', data: [2] } },
      ),
    ).toEqual({ a: 1, b: { d: 2 }, f: { data: [1] } })
  })
})
