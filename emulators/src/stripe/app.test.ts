import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { createStripeEmulator, type StripeEmulator } from './app.ts'

let emulator: StripeEmulator | null = null
afterEach(() => {
  emulator?.control.close()
  emulator = null
})

function inProcessClient(app: StripeEmulator['app']): Stripe {
  // The BFF's tests can run the stand-in without a port, through the SDK's fetch client.
  return new Stripe('sk_test_in_process', {
    httpClient: Stripe.createFetchHttpClient((url, init) =>
      Promise.resolve(app.request(String(url), init)),
    ),
    host: 'stripe.local',
    protocol: 'http',
    maxNetworkRetries: 0,
  })
}

describe('createStripeEmulator', () => {
  it('serves the SDK in-process through its fetch client', async () => {
    emulator = createStripeEmulator({ publicUrl: 'http://localhost:12111' })
    const stripe = inProcessClient(emulator.app)
    const customer = await stripe.customers.create({ email: 'inproc@example.com' })
    const [price] = (await stripe.prices.list({ lookup_keys: ['tessera_pro_monthly'] })).data
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: price?.id ?? '' }],
      success_url: 'http://localhost:8787/ok',
    })
    expect(session.url).toBe(`http://localhost:12111/checkout/${session.id}`)
    const paid = emulator.control.payCheckoutSession(session.id, {
      number: '4242424242424242',
      expiry: '1/40',
      cvc: '123',
      name: 'In Process',
    })
    expect(paid.ok).toBe(true)
    const subs = await stripe.subscriptions.list({ customer: customer.id })
    expect(subs.data.map((s) => s.status)).toEqual(['active'])
  })

  it('accepts only the configured key when one is given', async () => {
    emulator = createStripeEmulator({ apiKey: 'sk_test_right' })
    const wrong = await emulator.app.request('/v1/customers', {
      headers: { Authorization: 'Bearer sk_test_wrong' },
    })
    expect(wrong.status).toBe(401)
    const right = await emulator.app.request('/v1/customers', {
      headers: { Authorization: 'Bearer sk_test_right' },
    })
    expect(right.status).toBe(200)
  })

  it('answers a malformed form body with a 400, not a 500', async () => {
    emulator = createStripeEmulator()
    const response = await emulator.app.request('/v1/customers', {
      method: 'POST',
      headers: {
        Authorization: 'Bearer sk_test_x',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'metadata=x&metadata[a]=b',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: 'metadata[a]' },
    })
  })

  it('refuses a webhook URL without a secret at start-up', () => {
    expect(() =>
      createStripeEmulator({ webhookUrl: 'http://localhost:8787/api/billing/webhook' }),
    ).toThrow('STRIPE_WEBHOOK_SECRET')
  })

  it('drops events older than Stripe’s 30 days once they are delivered', async () => {
    emulator = createStripeEmulator()
    await emulator.app.request('/v1/customers', {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_test_x' },
    })
    expect(emulator.control.events()).toHaveLength(1)
    emulator.control.advanceClock(31 * 86_400)
    await emulator.app.request('/v1/customers', { headers: { Authorization: 'Bearer sk_test_x' } })
    expect(emulator.control.events()).toEqual([])
  })
})
