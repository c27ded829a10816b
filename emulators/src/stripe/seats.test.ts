import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { TEAM, startStand, subscribe, waitFor, type Stand } from './test-support.ts'

let stand: Stand | null = null
afterEach(async () => {
  await stand?.close()
  stand = null
})

/** A stand-in with a Team subscription of `seats` seats, paid through the hosted checkout. */
async function team(seats: number) {
  stand = await startStand()
  const s = stand
  const { subscription, customer } = await subscribe(s, { lookupKey: TEAM, quantity: seats })
  const item = subscription.items.data[0]
  if (!item) throw new Error('the subscription has no item')
  // Half-way through the period: every proration below is for exactly half of it.
  const half = item.current_period_start + (item.current_period_end - item.current_period_start) / 2
  return { s, subscription, customer, item, half }
}

async function failure(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof Stripe.errors.StripeError)) throw new Error(`no Stripe error: ${error}`)
  return error
}

const prorationsOf = (invoice: Stripe.Invoice) =>
  invoice.lines.data
    .filter((line) => line.parent?.subscription_item_details?.proration === true)
    .map((line) => line.amount)

function advancePast(s: Stand, timestamp: number): void {
  s.emulator.control.advanceClock(Math.max(0, timestamp - s.emulator.control.now() + 1))
}

describe('seats: quantities from checkout', () => {
  it('subscribes three seats from a checkout line of quantity 3 and bills 3 × the price', async () => {
    const { s, subscription, item } = await team(3)
    expect(item.quantity).toBe(3)
    expect(item.price.unit_amount).toBe(1500)
    const [first] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    expect(first?.amount_paid).toBe(4500)
    expect(first?.lines.data.map((line) => [line.quantity, line.amount])).toEqual([[3, 4500]])
  })
})

describe('seats: POST /v1/subscription_items/:id', () => {
  it('changes the quantity, keeps the prorations for the next invoice and reports the old quantity', async () => {
    const { s, subscription, item, half } = await team(2)
    const updated = await s.stripe.subscriptionItems.update(item.id, {
      quantity: 3,
      proration_date: half,
    })
    expect(updated).toMatchObject({ id: item.id, object: 'subscription_item', quantity: 3 })
    expect((await s.stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(3)
    // create_prorations (the default) bills nothing now.
    expect((await s.stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1)
    const [event] = await waitFor(() => {
      const events = s.delivered('customer.subscription.updated')
      return events.length > 0 ? events : undefined
    }, 'customer.subscription.updated')
    const object = event?.data.object as Stripe.Subscription
    const previous = event?.data.previous_attributes as { items?: { data: { quantity: number }[] } }
    expect(object.items.data[0]?.quantity).toBe(3)
    expect(previous.items?.data[0]?.quantity).toBe(2)

    // The renewal bills 3 seats and the prorations: −2 × $7.50 + 3 × $7.50.
    advancePast(s, item.current_period_end)
    const [renewal] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    expect(renewal?.billing_reason).toBe('subscription_cycle')
    expect(prorationsOf(renewal!)).toEqual([-1500, 2250])
    expect(renewal?.amount_paid).toBe(4500 + 750)
  })

  it('bills the prorated seat at once with always_invoice', async () => {
    const { s, subscription, item, half } = await team(2)
    await s.stripe.subscriptionItems.update(item.id, {
      quantity: 3,
      proration_behavior: 'always_invoice',
      proration_date: half,
    })
    const [latest] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    expect(latest).toMatchObject({ billing_reason: 'subscription_update', status: 'paid' })
    expect(latest?.amount_paid).toBe(750)
    expect(prorationsOf(latest!)).toEqual([-1500, 2250])
    // Nothing is left pending: the renewal bills the three seats alone.
    advancePast(s, item.current_period_end)
    const [renewal] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    expect(renewal?.amount_paid).toBe(4500)
  })

  it('credits a removed seat on the next invoice, and prorates nothing with none', async () => {
    const { s, subscription, item, half } = await team(3)
    await s.stripe.subscriptionItems.update(item.id, { quantity: 2, proration_date: half })
    const [down] = await s.stripe.invoices
      .list({ subscription: subscription.id })
      .then((list) => list.data)
    expect(down?.billing_reason).toBe('subscription_create')
    await s.stripe.subscriptionItems.update(item.id, { quantity: 4, proration_behavior: 'none' })
    advancePast(s, item.current_period_end)
    const [renewal] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    // 4 seats, and the credit for the seat removed half-way: 6000 − 2250 + 1500.
    expect(prorationsOf(renewal!)).toEqual([-2250, 1500])
    expect(renewal?.amount_paid).toBe(6000 - 750)
  })

  it('answers the same key and parameters with the first answer, and other parameters with idempotency_error', async () => {
    const { s, item } = await team(2)
    const key = `seats-${crypto.randomUUID()}`
    const first = await s.stripe.subscriptionItems.update(
      item.id,
      { quantity: 3 },
      { idempotencyKey: key },
    )
    const again = await s.stripe.subscriptionItems.update(
      item.id,
      { quantity: 3 },
      { idempotencyKey: key },
    )
    expect(again.quantity).toBe(3)
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect(again.lastResponse.requestId).not.toBe(first.lastResponse.requestId)
    const updates = s.emulator.control
      .events()
      .filter((entry) => entry.event.type === 'customer.subscription.updated')
    expect(updates).toHaveLength(1)
    const other = await failure(
      s.stripe.subscriptionItems.update(item.id, { quantity: 4 }, { idempotencyKey: key }),
    )
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
    expect(other.statusCode).toBe(400)
    expect((await s.stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(3)
  })

  it('refuses a quantity that is not a positive integer, naming it, and changes nothing', async () => {
    const { s, item } = await team(2)
    for (const quantity of [0, -1, 1.5]) {
      const error = await failure(s.stripe.subscriptionItems.update(item.id, { quantity }))
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
      expect(error).toMatchObject({
        statusCode: 400,
        code: 'parameter_invalid_integer',
        param: 'quantity',
      })
    }
    const raw = await fetch(`${s.emulator.url}/v1/subscription_items/${item.id}`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer sk_test_local',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'quantity=three',
    })
    expect(raw.status).toBe(400)
    expect(await raw.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid_integer',
        param: 'quantity',
      },
    })
    expect((await s.stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(2)
  })

  it('refuses an unknown item, an unknown proration behaviour and a proration date outside the period', async () => {
    const { s, item } = await team(2)
    const missing = await failure(s.stripe.subscriptionItems.update('si_nope', { quantity: 3 }))
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' })
    const behaviour = await failure(
      s.stripe.subscriptionItems.update(item.id, {
        quantity: 3,
        proration_behavior: 'sometimes' as 'none',
      }),
    )
    expect(behaviour).toMatchObject({ statusCode: 400, param: 'proration_behavior' })
    const late = await failure(
      s.stripe.subscriptionItems.update(item.id, {
        quantity: 3,
        proration_date: item.current_period_end + 86_400,
      }),
    )
    expect(late).toMatchObject({ statusCode: 400, param: 'proration_date' })
    expect((await s.stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(2)
  })

  it('refuses to change the seats of a canceled subscription', async () => {
    const { s, subscription, item } = await team(2)
    await s.stripe.subscriptions.cancel(subscription.id)
    const error = await failure(s.stripe.subscriptionItems.update(item.id, { quantity: 3 }))
    expect(error.statusCode).toBe(400)
  })
})

describe('seats: POST /v1/invoices/create_preview', () => {
  it('previews the prorations and the next invoice of a seat change without making it', async () => {
    const { s, subscription, customer, item, half } = await team(2)
    const preview = await s.stripe.invoices.createPreview({
      customer: customer.id,
      subscription: subscription.id,
      subscription_details: {
        items: [{ id: item.id, quantity: 3 }],
        proration_date: half,
        proration_behavior: 'create_prorations',
      },
    })
    expect(preview.id).toMatch(/^upcoming_in_/)
    expect(preview.status).toBe('draft')
    expect(prorationsOf(preview)).toEqual([-1500, 2250])
    const renewal = preview.lines.data.find(
      (line) => line.parent?.subscription_item_details?.proration === false,
    )
    expect(renewal).toMatchObject({ quantity: 3, amount: 4500 })
    expect(renewal?.period.start).toBe(item.current_period_end)
    expect(preview.total).toBe(4500 + 750)
    expect(preview.amount_due).toBe(4500 + 750)
    // Nothing changed.
    expect((await s.stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(2)
    expect((await s.stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1)
    await expect(s.stripe.invoices.retrieve(preview.id)).rejects.toMatchObject({ statusCode: 404 })
  })

  it('previews what always_invoice would bill at once, and the next invoice with nothing to change', async () => {
    const { s, subscription, item, half } = await team(2)
    const now = await s.stripe.invoices.createPreview({
      subscription: subscription.id,
      subscription_details: {
        items: [{ id: item.id, quantity: 4 }],
        proration_date: half,
        proration_behavior: 'always_invoice',
      },
    })
    expect(prorationsOf(now)).toEqual([-1500, 3000])
    expect(now.total).toBe(1500)
    const next = await s.stripe.invoices.createPreview({ subscription: subscription.id })
    expect(prorationsOf(next)).toEqual([])
    expect(next.total).toBe(3000)
  })

  it('includes prorations already pending in the next invoice', async () => {
    const { s, subscription, item, half } = await team(2)
    await s.stripe.subscriptionItems.update(item.id, { quantity: 3, proration_date: half })
    const next = await s.stripe.invoices.createPreview({ subscription: subscription.id })
    expect(prorationsOf(next)).toEqual([-1500, 2250])
    expect(next.total).toBe(5250)
  })

  it('refuses a preview without a subscription, a zero quantity and a proration date with none', async () => {
    const { s, subscription, item, half } = await team(2)
    const noSub = await failure(s.stripe.invoices.createPreview({}))
    expect(noSub).toMatchObject({ statusCode: 400, param: 'subscription' })
    const zero = await failure(
      s.stripe.invoices.createPreview({
        subscription: subscription.id,
        subscription_details: { items: [{ id: item.id, quantity: 0 }] },
      }),
    )
    expect(zero).toMatchObject({
      statusCode: 400,
      code: 'parameter_invalid_integer',
      param: 'subscription_details[items][0][quantity]',
    })
    const none = await failure(
      s.stripe.invoices.createPreview({
        subscription: subscription.id,
        subscription_details: {
          items: [{ id: item.id, quantity: 3 }],
          proration_date: half,
          proration_behavior: 'none',
        },
      }),
    )
    expect(none).toMatchObject({ statusCode: 400, param: 'subscription_details[proration_date]' })
    const otherItem = await failure(
      s.stripe.invoices.createPreview({
        subscription: subscription.id,
        subscription_details: { items: [{ id: 'si_other', quantity: 3 }] },
      }),
    )
    expect(otherItem).toMatchObject({
      statusCode: 404,
      param: 'subscription_details[items][0][id]',
    })
  })
})
