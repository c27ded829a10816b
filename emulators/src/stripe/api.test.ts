import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRO, TEAM, startStand, type Stand } from './test-support.ts'

let stand: Stand
let stripe: Stripe

beforeAll(async () => {
  stand = await startStand()
  stripe = stand.stripe
})

afterAll(async () => {
  await stand.close()
})

async function rejectionOf(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) return error
    throw error
  }
  throw new Error('expected the call to fail')
}

describe('products and prices', () => {
  it('finds seeded prices by lookup key with their product expanded', async () => {
    const prices = await stripe.prices.list({ lookup_keys: [PRO, TEAM], expand: ['data.product'] })
    expect(prices.data.map((p) => p.lookup_key).sort()).toEqual([PRO, TEAM])
    const pro = prices.data.find((p) => p.lookup_key === PRO)
    expect(pro).toMatchObject({
      object: 'price',
      unit_amount: 1500,
      currency: 'usd',
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      livemode: false,
    })
    expect(pro?.id).toMatch(/^price_/)
    expect(pro?.product).toMatchObject({ object: 'product', name: 'Tessera Pro' })
  })

  it('retrieves a price and its product by id', async () => {
    const [price] = (await stripe.prices.list({ lookup_keys: [TEAM] })).data
    if (!price) throw new Error('no team price')
    const again = await stripe.prices.retrieve(price.id)
    expect(again.unit_amount).toBe(1500)
    const product = await stripe.products.retrieve(String(price.product))
    expect(product).toMatchObject({
      object: 'product',
      name: 'Tessera Team',
      default_price: price.id,
    })
  })

  it('seeds the catalogue it is given', async () => {
    const custom = await startStand({
      seed: [
        {
          lookupKey: 'x_yearly',
          productName: 'X',
          unitAmount: 10_000,
          currency: 'eur',
          interval: 'year',
        },
      ],
    })
    try {
      const prices = await custom.stripe.prices.list()
      expect(prices.data).toHaveLength(1)
      expect(prices.data[0]).toMatchObject({
        lookup_key: 'x_yearly',
        currency: 'eur',
        recurring: { interval: 'year' },
      })
    } finally {
      await custom.close()
    }
  })
})

describe('customers', () => {
  it('creates, retrieves, updates, lists by email and deletes a customer', async () => {
    const email = `crud-${Date.now()}@example.com`
    const created = await stripe.customers.create({
      email,
      name: 'Ada',
      metadata: { user_id: 'u_1' },
    })
    expect(created).toMatchObject({
      object: 'customer',
      email,
      name: 'Ada',
      metadata: { user_id: 'u_1' },
      livemode: false,
    })
    expect(created.id).toMatch(/^cus_/)
    expect(typeof created.created).toBe('number')

    const updated = await stripe.customers.update(created.id, {
      name: 'Ada L.',
      metadata: { plan: 'pro', user_id: '' },
    })
    expect(updated.name).toBe('Ada L.')
    expect(updated.metadata).toEqual({ plan: 'pro' })

    const listed = await stripe.customers.list({ email })
    expect(listed.data.map((c) => c.id)).toEqual([created.id])

    const retrieved = await stripe.customers.retrieve(created.id)
    expect(retrieved).toMatchObject({ id: created.id, name: 'Ada L.' })

    const deleted = await stripe.customers.del(created.id)
    expect(deleted).toEqual({ id: created.id, object: 'customer', deleted: true })
    expect(await stripe.customers.retrieve(created.id)).toMatchObject({ deleted: true })
    expect((await stripe.customers.list({ email })).data).toEqual([])
    const error = await rejectionOf(stripe.customers.update(created.id, { name: 'x' }))
    expect(error.statusCode).toBe(404)
  })

  it('finds customers with the search language', async () => {
    const email = `search-${Date.now()}@example.com`
    const created = await stripe.customers.create({ email, metadata: { user_id: 'search_user' } })
    const byEmail = await stripe.customers.search({ query: `email:'${email}'` })
    expect(byEmail.data.map((c) => c.id)).toEqual([created.id])
    const byMetadata = await stripe.customers.search({ query: "metadata['user_id']:'search_user'" })
    expect(byMetadata.data.map((c) => c.id)).toEqual([created.id])
  })

  it('pages through a list with starting_after', async () => {
    const email = `page-${Date.now()}@example.com`
    for (let i = 0; i < 3; i++) await stripe.customers.create({ email })
    const first = await stripe.customers.list({ email, limit: 2 })
    expect(first.has_more).toBe(true)
    const all = await stripe.customers.list({ email, limit: 2 }).autoPagingToArray({ limit: 10 })
    expect(all).toHaveLength(3)
    expect(new Set(all.map((c) => c.id)).size).toBe(3)
  })
})

describe('errors', () => {
  it('names an unknown parameter in a StripeInvalidRequestError', async () => {
    const error = await rejectionOf(
      stripe.customers.create({
        email: 'x@example.com',
        shoe_size: '42',
      } as Stripe.CustomerCreateParams),
    )
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(error.statusCode).toBe(400)
    expect(error.param).toBe('shoe_size')
    expect(error.message).toBe('Received unknown parameter: shoe_size')
  })

  it('names a missing parameter', async () => {
    const error = await rejectionOf(
      stripe.billingPortal.sessions.create({} as Stripe.BillingPortal.SessionCreateParams),
    )
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(error.param).toBe('customer')
    expect(error.code).toBe('parameter_missing')
  })

  it('answers a missing object with resource_missing and a 404', async () => {
    const error = await rejectionOf(stripe.subscriptions.retrieve('sub_nope'))
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(error.statusCode).toBe(404)
    expect(error.code).toBe('resource_missing')
    expect(error.message).toBe("No such subscription: 'sub_nope'")
  })

  it('refuses a checkout line item whose price does not exist, naming the line', async () => {
    const error = await rejectionOf(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: 'price_missing', quantity: 1 }],
        success_url: 'http://app.test/ok',
      }),
    )
    expect(error.param).toBe('line_items[0][price]')
  })

  it('puts the Request-Id header on errors and successes', async () => {
    const error = await rejectionOf(stripe.customers.retrieve('cus_missing'))
    expect(error.requestId).toMatch(/^req_/)
    const customer = await stripe.customers.create({})
    expect(customer.lastResponse.requestId).toMatch(/^req_/)
    expect(customer.lastResponse.requestId).not.toBe(error.requestId)
  })

  it('raises StripeAuthenticationError without a test key', async () => {
    const live = new Stripe('sk_live_nope_nope_nope', {
      host: '127.0.0.1',
      port: stand.emulator.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    })
    const error = await rejectionOf(live.customers.list())
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError)
    expect(error.statusCode).toBe(401)
    const bare = await fetch(`${stand.emulator.url}/v1/customers`)
    expect(bare.status).toBe(401)
    expect(bare.headers.get('request-id')).toMatch(/^req_/)
    expect(await bare.json()).toMatchObject({ error: { type: 'invalid_request_error' } })
  })

  it('answers an unknown endpoint with a Stripe-shaped 404 that lists what exists', async () => {
    const response = await fetch(`${stand.emulator.url}/v1/coupons`, {
      headers: { Authorization: 'Bearer sk_test_local' },
    })
    expect(response.status).toBe(404)
    const body = (await response.json()) as { error: { type: string; message: string } }
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.message).toContain('Unrecognized request URL (GET: /v1/coupons)')
    expect(body.error.message).toContain('/v1/customers')
  })

  it('refuses to expand a property that is not expandable', async () => {
    const error = await rejectionOf(stripe.prices.list({ expand: ['data.nickname'] }))
    expect(error.param).toBe('expand')
    expect(error.message).toContain('data.nickname')
  })

  it('refuses a JSON body, which Stripe’s v1 API does not take', async () => {
    const response = await fetch(`${stand.emulator.url}/v1/customers`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_test_local', 'Content-Type': 'application/json' },
      body: '{"email":"a@b.c"}',
    })
    expect(response.status).toBe(400)
  })
})
