import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { PRO, startStand, startWebhookReceiver, waitFor, type Stand } from './test-support.ts'

let stand: Stand | null = null
afterEach(async () => {
  await stand?.close()
  stand = null
})

async function post(s: Stand, path: string, body?: unknown): Promise<Response> {
  return fetch(`${s.emulator.url}/_emulator${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
}

async function openSession(s: Stand): Promise<string> {
  const [price] = (await s.stripe.prices.list({ lookup_keys: [PRO] })).data
  const customer = await s.stripe.customers.create({ email: 'ctl@example.com' })
  const session = await s.stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: price?.id ?? '' }],
    success_url: 'http://app.test/done?id={CHECKOUT_SESSION_ID}',
  })
  return session.id
}

describe('/_emulator', () => {
  it('advances the clock and reports what ran', async () => {
    stand = await startStand()
    const before = stand.emulator.control.now()
    const response = await post(stand, '/clock/advance', { seconds: 3600 })
    const body = (await response.json()) as { now: number; steps: unknown[] }
    expect(body.now).toBeGreaterThanOrEqual(before + 3600)
    expect(body.steps).toEqual([])
    const clock = (await (await fetch(`${stand.emulator.url}/_emulator/clock`)).json()) as {
      now: number
    }
    expect(clock.now).toBeGreaterThanOrEqual(before + 3600)
  })

  it('refuses a malformed request, naming the field', async () => {
    stand = await startStand()
    const response = await post(stand, '/clock/advance', { seconds: -5 })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: 'seconds' },
    })
  })

  it('pays a checkout session without a browser, or reports the decline', async () => {
    stand = await startStand()
    const declinedId = await openSession(stand)
    const declined = await post(stand, `/checkout/${declinedId}/pay`, { card: '4000000000000002' })
    expect(declined.status).toBe(402)
    expect(await declined.json()).toMatchObject({
      error: { type: 'card_error', message: 'Your card was declined.' },
    })

    const id = await openSession(stand)
    const paid = await post(stand, `/checkout/${id}/pay`, {})
    expect(paid.status).toBe(200)
    expect(await paid.json()).toMatchObject({
      redirectUrl: `http://app.test/done?id=${id}`,
      session: { id, status: 'complete' },
    })
  })

  it('shows the whole state, and resets everything but the catalogue', async () => {
    stand = await startStand()
    await stand.stripe.customers.create({ email: 'gone@example.com' })
    stand.emulator.control.advanceClock(86_400)
    const state = (await (await fetch(`${stand.emulator.url}/_emulator/state`)).json()) as {
      customers: Record<string, unknown>
      prices: Record<string, unknown>
      webhooks: { url: string }
      clockOffset: number
    }
    expect(Object.keys(state.customers)).toHaveLength(1)
    expect(state.webhooks.url).toBe(stand.receiver.url)
    expect(state.clockOffset).toBeGreaterThanOrEqual(86_400)
    const prices = Object.keys(state.prices)

    expect((await post(stand, '/reset')).status).toBe(200)
    const after = (await (
      await fetch(`${stand.emulator.url}/_emulator/state`)
    ).json()) as typeof state
    expect(after.customers).toEqual({})
    expect(after.clockOffset).toBe(0)
    expect(Object.keys(after.prices)).toEqual(prices)
    expect((await stand.stripe.customers.list()).data).toEqual([])
  })

  it('switches the webhook endpoint at run time', async () => {
    stand = await startStand()
    const other = await startWebhookReceiver('whsec_other')
    try {
      const response = await post(stand, '/webhooks/endpoint', {
        url: other.url,
        secret: 'whsec_other',
      })
      expect(response.status).toBe(200)
      await stand.stripe.customers.create({})
      await waitFor(() => other.received.length === 1, 'delivery to the new endpoint')
      expect(other.rejected).toEqual([])
      expect(stand.receiver.received).toEqual([])
    } finally {
      await other.close()
    }
  })
})

describe('/_emulator/faults', () => {
  it('fails the next matching request with a 500 the SDK reports as StripeAPIError', async () => {
    stand = await startStand()
    await post(stand, '/faults', { status: 500, method: 'POST', path: '/v1/customers' })
    const error = await stand.stripe.customers.create({}).then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError)
    expect((error as Stripe.errors.StripeError).statusCode).toBe(500)
    expect((await stand.stripe.customers.create({})).id).toMatch(/^cus_/)
  })

  it('answers 429 as a rate limit', async () => {
    stand = await startStand()
    await post(stand, '/faults', { status: 429 })
    const error = await stand.stripe.customers.list().then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError)
  })

  it('delays a request past a short client timeout, and still carries it out', async () => {
    stand = await startStand()
    const impatient = new Stripe('sk_test_local', {
      host: '127.0.0.1',
      port: stand.emulator.port,
      protocol: 'http',
      maxNetworkRetries: 0,
      timeout: 100,
    })
    await post(stand, '/faults', { delayMs: 400, path: '/v1/customers' })
    const error = await impatient.customers.create({ email: 'slow@example.com' }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError)
    const s = stand
    await waitFor(
      async () => (await s.stripe.customers.list({ email: 'slow@example.com' })).data.length === 1,
      'the slow request to finish',
    )
  })

  it('refuses a fault that does nothing', async () => {
    stand = await startStand()
    expect((await post(stand, '/faults', { count: 2 })).status).toBe(400)
  })
})
