import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStand, type Stand } from './test-support.ts'

let stand: Stand
let stripe: Stripe

beforeAll(async () => {
  stand = await startStand()
  stripe = stand.stripe
})

afterAll(async () => {
  await stand.close()
})

async function customersWith(email: string): Promise<Stripe.Customer[]> {
  return (await stripe.customers.list({ email, limit: 100 })).data
}

describe('idempotency keys', () => {
  it('replays the first response for the same key and parameters: one customer', async () => {
    const email = `idem-${Date.now()}@example.com`
    const key = `create-customer-${email}`
    const first = await stripe.customers.create({ email }, { idempotencyKey: key })
    const second = await stripe.customers.create({ email }, { idempotencyKey: key })
    expect(second.id).toBe(first.id)
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect(second.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId)
    expect(second.lastResponse.requestId).not.toBe(first.lastResponse.requestId)
    expect(await customersWith(email)).toHaveLength(1)
  })

  it('matches parameters whatever their order', async () => {
    const email = `order-${Date.now()}@example.com`
    const key = `order-${email}`
    const first = await stripe.customers.create({ email, name: 'A' }, { idempotencyKey: key })
    const second = await stripe.customers.create({ name: 'A', email }, { idempotencyKey: key })
    expect(second.id).toBe(first.id)
  })

  it('raises StripeIdempotencyError for the same key with other parameters', async () => {
    const key = `conflict-${Date.now()}`
    await stripe.customers.create({ email: 'one@example.com' }, { idempotencyKey: key })
    const error = await stripe.customers
      .create({ email: 'two@example.com' }, { idempotencyKey: key })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
    expect((error as Stripe.errors.StripeError).statusCode).toBe(400)
    expect((error as Stripe.errors.StripeError).message).toContain('same parameters')
  })

  it('refuses a key reused on another endpoint', async () => {
    const key = `endpoint-${Date.now()}`
    const customer = await stripe.customers.create({}, { idempotencyKey: key })
    const error = await stripe.billingPortal.sessions
      .create({ customer: customer.id }, { idempotencyKey: key })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
    expect((error as Error).message).toContain('same endpoint')
  })

  it('does not save a validation failure, so a corrected retry can use the key', async () => {
    const key = `fix-${Date.now()}`
    const bad = await stripe.customers
      .create({ email: 'x@example.com', colour: 'red' } as Stripe.CustomerCreateParams, {
        idempotencyKey: key,
      })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(bad).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    const good = await stripe.customers.create({ email: 'x@example.com' }, { idempotencyKey: key })
    expect(good.id).toMatch(/^cus_/)
  })

  it('forgets a key after 24 hours of emulated time', async () => {
    const email = `expiry-${Date.now()}@example.com`
    const key = `expiry-${email}`
    const first = await stripe.customers.create({ email }, { idempotencyKey: key })
    stand.emulator.control.advanceClock(24 * 60 * 60 + 1)
    const second = await stripe.customers.create({ email }, { idempotencyKey: key })
    expect(second.id).not.toBe(first.id)
    expect(second.lastResponse.headers['idempotent-replayed']).toBeUndefined()
  })

  it('makes one customer from many parallel requests with one key', async () => {
    const email = `parallel-${Date.now()}@example.com`
    const key = `parallel-${email}`
    // A retrying client (like the BFF's) turns an in-progress 409 into the replayed answer.
    const retrying = new Stripe('sk_test_local', {
      host: '127.0.0.1',
      port: stand.emulator.port,
      protocol: 'http',
      maxNetworkRetries: 3,
    })
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        retrying.customers.create({ email }, { idempotencyKey: key }),
      ),
    )
    expect(new Set(results.map((c) => c.id)).size).toBe(1)
    expect(await customersWith(email)).toHaveLength(1)
  })
})
