import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import {
  createWebhookCryptoProvider,
  isSignedInTheFuture,
  signedTimestampOf,
} from './webhook-crypto.ts'

const stripe = new Stripe('sk_test_crypto')
const secret = 'whsec_crypto_test'
const payload = JSON.stringify({ id: 'evt_crypto', object: 'event', type: 'ping' })

describe('the webhook crypto provider', () => {
  it('computes the HMAC-SHA256 values the SDK documents for its providers', async () => {
    const provider = createWebhookCryptoProvider()
    expect(await provider.computeHMACSignatureAsync('', 'test_secret')).toBe(
      'f7f9bd47fb987337b5796fdc1fdb9ba221d0d5396814bfcaf9521f43fd8927fd',
    )
    expect(await provider.computeHMACSignatureAsync('\ud83d\ude00', 'test_secret')).toBe(
      '837da296d05c4fe31f61d5d7ead035099d9585a5bcde87de952012a78f0b0c43',
    )
  })

  it('agrees with the Node entry’s provider (node:crypto) on every payload', async () => {
    const web = createWebhookCryptoProvider()
    const node = Stripe.createNodeCryptoProvider()
    for (const body of ['', payload, '\ud83d\ude00 é', 'x'.repeat(5000)]) {
      expect(await web.computeHMACSignatureAsync(body, secret)).toBe(
        await node.computeHMACSignatureAsync(body, secret),
      )
    }
  })

  it('imports a secret once however many deliveries it checks', async () => {
    let imports = 0
    const counting = new Proxy(crypto.subtle, {
      get(target, property) {
        if (property === 'importKey') {
          return (...args: unknown[]) => {
            imports += 1
            return (Reflect.get(target, property) as (...a: unknown[]) => unknown).call(
              target,
              ...args,
            )
          }
        }
        const value = Reflect.get(target, property) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const provider = createWebhookCryptoProvider(counting)
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret })
    for (let i = 0; i < 3; i++) {
      const event = await stripe.webhooks.constructEventAsync(
        payload,
        header,
        secret,
        300,
        provider,
      )
      expect(event.id).toBe('evt_crypto')
    }
    expect(imports).toBe(1)
  })

  it('refuses a signature made with another secret, as the SDK provider does', async () => {
    const provider = createWebhookCryptoProvider()
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' })
    await expect(
      stripe.webhooks.constructEventAsync(payload, header, secret, 300, provider),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeSignatureVerificationError)
  })

  it('is asynchronous only, so the synchronous constructEvent cannot use it by mistake', () => {
    const provider = createWebhookCryptoProvider()
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret })
    expect(() => stripe.webhooks.constructEvent(payload, header, secret, 300, provider)).toThrow(
      /asynchronous/,
    )
  })
})

describe('the signed timestamp bound', () => {
  const now = Date.parse('2026-06-01T12:00:00Z')
  const seconds = Math.floor(now / 1000)

  it('reads the signed timestamp as the SDK does, the last t= winning', () => {
    expect(signedTimestampOf(`t=${seconds},v1=abc`)).toBe(seconds)
    expect(signedTimestampOf(`t=1,v1=abc,t=${seconds}`)).toBe(seconds)
    expect(signedTimestampOf('v1=abc')).toBeNull()
    expect(signedTimestampOf('t=soon,v1=abc')).toBeNull()
  })

  it('refuses a header signed more than the tolerance ahead, and takes one within it', () => {
    expect(isSignedInTheFuture(`t=${seconds + 3600},v1=x`, 300, now)).toBe(true)
    expect(isSignedInTheFuture(`t=${seconds + 301},v1=x`, 300, now)).toBe(true)
    expect(isSignedInTheFuture(`t=${seconds + 300},v1=x`, 300, now)).toBe(false)
    expect(isSignedInTheFuture(`t=${seconds - 3600},v1=x`, 300, now)).toBe(false)
  })
})
