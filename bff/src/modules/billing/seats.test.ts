import { stripePrices } from '@tessera/contracts'
import { createStripeEmulator } from '@tessera/emulators/stripe/app'
import type { StripeEmulator } from '@tessera/emulators/stripe/app'
import Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_SEATS, SeatChangeError, previewSeatChange, setSeatQuantity } from './seats.ts'

let emulator: StripeEmulator
let stripe: Stripe

beforeEach(() => {
  emulator = createStripeEmulator({ seed: stripePrices, publicUrl: 'http://stripe.test' })
  stripe = new Stripe('sk_test_seats', {
    host: 'stripe.test',
    port: 80,
    protocol: 'http',
    httpClient: Stripe.createFetchHttpClient((url, init) =>
      Promise.resolve(emulator.app.request(String(url), init)),
    ),
    maxNetworkRetries: 0,
  })
})

afterEach(() => {
  emulator.control.close()
})

/** A paid subscription to `lookupKey` with `seats` seats, and the middle of its period. */
async function subscribe(lookupKey: string, seats: number) {
  const [price] = (await stripe.prices.list({ lookup_keys: [lookupKey] })).data
  if (!price) throw new Error(`no price ${lookupKey}`)
  const customer = await stripe.customers.create({ email: 'owner@example.com' })
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: price.id, quantity: seats }],
    success_url: 'http://app.test/done',
  })
  const paid = emulator.control.payCheckoutSession(session.id, {
    number: '4242 4242 4242 4242',
    expiry: '12 / 40',
    cvc: '123',
    name: 'Ada Owner',
  })
  if (!paid.ok) throw new Error('checkout was not paid')
  const subscriptionId = String(paid.session.subscription)
  const subscription = await stripe.subscriptions.retrieve(subscriptionId)
  const item = subscription.items.data[0]
  if (!item) throw new Error('no item')
  const half = item.current_period_start + (item.current_period_end - item.current_period_start) / 2
  return { subscriptionId, item, half }
}

async function failure(call: Promise<unknown>): Promise<SeatChangeError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof SeatChangeError)) throw new Error(`not a SeatChangeError: ${error}`)
  return error
}

describe('setSeatQuantity', () => {
  it('sets the seats of a Team subscription, prorated onto the next invoice', async () => {
    const { subscriptionId, item } = await subscribe('tessera_team_monthly', 2)
    const change = await setSeatQuantity(stripe, subscriptionId, 3, 'seats-add-1')
    expect(change).toEqual({
      subscriptionId,
      subscriptionItemId: item.id,
      quantity: 3,
      previousQuantity: 2,
      changed: true,
    })
    expect((await stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(3)
    // Nothing billed now: the prorations wait for the renewal.
    expect((await stripe.invoices.list({ subscription: subscriptionId })).data).toHaveLength(1)
    const next = await stripe.invoices.createPreview({ subscription: subscriptionId })
    expect(next.lines.data.some((l) => l.parent?.subscription_item_details?.proration)).toBe(true)
  })

  it('changes the seats once when retried with the same key, and sends nothing when already so', async () => {
    const { subscriptionId } = await subscribe('tessera_team_monthly', 2)
    await setSeatQuantity(stripe, subscriptionId, 4, 'seats-retry')
    const again = await setSeatQuantity(stripe, subscriptionId, 4, 'seats-retry')
    expect(again).toMatchObject({ quantity: 4, previousQuantity: 4, changed: false })
    const updates = emulator.control
      .events()
      .filter((entry) => entry.event.type === 'customer.subscription.updated')
    expect(updates).toHaveLength(1)
  })

  it('marks a Stripe outage as transient, and the retry with the same key goes through', async () => {
    const { subscriptionId } = await subscribe('tessera_team_monthly', 2)
    emulator.control.injectFault({
      count: 1,
      method: 'POST',
      path: '/v1/subscription_items',
      status: 503,
    })
    const error = await failure(setSeatQuantity(stripe, subscriptionId, 3, 'seats-outage'))
    expect(error).toMatchObject({ reason: 'stripe', transient: true })
    expect((await setSeatQuantity(stripe, subscriptionId, 3, 'seats-outage')).quantity).toBe(3)
  })

  it('refuses a seat count that is not a whole number from 1 up, without calling Stripe', async () => {
    const { subscriptionId } = await subscribe('tessera_team_monthly', 2)
    for (const quantity of [0, -1, 2.5, Number.NaN, MAX_SEATS + 1]) {
      const error = await failure(
        setSeatQuantity(stripe, subscriptionId, quantity, `bad-${quantity}`),
      )
      expect(error).toMatchObject({ reason: 'invalid_quantity', transient: false })
    }
    const preview = await failure(previewSeatChange(stripe, subscriptionId, 0))
    expect(preview.reason).toBe('invalid_quantity')
  })

  it('refuses fewer seats than the plan is sold with, and seats on a plan not sold per seat', async () => {
    const team = await subscribe('tessera_team_monthly', 2)
    const below = await failure(setSeatQuantity(stripe, team.subscriptionId, 1, 'seats-one'))
    expect(below).toMatchObject({ reason: 'below_minimum', transient: false })
    const pro = await subscribe('tessera_pro_monthly', 1)
    const notPerSeat = await failure(setSeatQuantity(stripe, pro.subscriptionId, 3, 'seats-pro'))
    expect(notPerSeat).toMatchObject({ reason: 'not_per_seat', transient: false })
  })

  it('says a subscription Stripe does not know is not worth retrying', async () => {
    const error = await failure(setSeatQuantity(stripe, 'sub_missing', 3, 'seats-missing'))
    expect(error).toMatchObject({ reason: 'stripe', transient: false })
  })
})

describe('previewSeatChange', () => {
  it('shows the proration of one more seat and the next invoice total, changing nothing', async () => {
    const { subscriptionId, item, half } = await subscribe('tessera_team_monthly', 2)
    const preview = await previewSeatChange(stripe, subscriptionId, 3, { prorationDate: half })
    // Half a period: −2 × $7.50 for the old seats, +3 × $7.50 for the new ones.
    expect(preview.prorationAmount).toBe(750)
    expect(preview.nextInvoiceTotal).toBe(3 * 1500 + 750)
    expect(preview.currency).toBe('usd')
    expect(preview.prorationDate).toBe(half)
    expect(preview.lines.map((line) => [line.proration, line.quantity, line.amount])).toEqual([
      [true, 2, -1500],
      [true, 3, 2250],
      [false, 3, 4500],
    ])
    expect((await stripe.subscriptionItems.retrieve(item.id)).quantity).toBe(2)

    // Made with the preview's proration date, the change costs what the preview said.
    await setSeatQuantity(stripe, subscriptionId, 3, 'seats-as-previewed', {
      prorationDate: half,
    })
    const next = await stripe.invoices.createPreview({ subscription: subscriptionId })
    expect(next.total).toBe(preview.nextInvoiceTotal)
  })

  it('shows a credit for a removed seat', async () => {
    const { subscriptionId, half } = await subscribe('tessera_team_monthly', 3)
    const preview = await previewSeatChange(stripe, subscriptionId, 2, { prorationDate: half })
    expect(preview.prorationAmount).toBe(-750)
    expect(preview.nextInvoiceTotal).toBe(2 * 1500 - 750)
  })

  it('marks a Stripe outage during the preview as transient', async () => {
    const { subscriptionId } = await subscribe('tessera_team_monthly', 2)
    emulator.control.injectFault({ count: 1, method: 'POST', path: '/v1/invoices', status: 500 })
    const error = await failure(previewSeatChange(stripe, subscriptionId, 3))
    expect(error).toMatchObject({ reason: 'stripe', transient: true })
  })
})
