// The HMAC behind Stripe's webhook signatures, for `constructEventAsync`, where the app runs on Web
// standards only (docs/decisions/007): like the SDK's `createSubtleCryptoProvider()`, but the
// signing secret is imported once instead of on every delivery (importKey cost as much as the
// signature itself). The Node entry gives the app `node:crypto`'s HMAC instead (decision 040).
import type Stripe from 'stripe'

/** What the SDK computes webhook signatures with. */
export type WebhookCryptoProvider = NonNullable<
  Parameters<Stripe['webhooks']['constructEventAsync']>[4]
>
type Subtle = typeof crypto.subtle
type Key = Awaited<ReturnType<Subtle['importKey']>>

const encoder = new TextEncoder()
const hexOfByte = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/** A Stripe crypto provider on `crypto.subtle` that keeps each secret's imported key. */
export function createWebhookCryptoProvider(subtle: Subtle = crypto.subtle): WebhookCryptoProvider {
  // One entry per signing secret (one, two while a secret is rolled): never grows with traffic.
  const keys = new Map<string, Promise<Key>>()
  const keyOf = (secret: string): Promise<Key> => {
    let key = keys.get(secret)
    if (key === undefined) {
      key = subtle.importKey(
        'raw',
        encoder.encode(secret),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      )
      // A failed import is not kept: the next delivery tries again.
      void key.catch(() => keys.delete(secret))
      keys.set(secret, key)
    }
    return key
  }
  return {
    computeHMACSignature() {
      throw new Error('This crypto provider is asynchronous only: use constructEventAsync.')
    },
    async computeHMACSignatureAsync(payload, secret) {
      const signature = new Uint8Array(
        await subtle.sign('HMAC', await keyOf(secret), encoder.encode(payload)),
      )
      let hex = ''
      for (const byte of signature) hex += hexOfByte[byte]
      return hex
    },
    async computeSHA256Async(data) {
      return new Uint8Array(await subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>))
    },
  }
}

/**
 * The signed timestamp (`t=`, seconds) of a `Stripe-Signature` header, read as the SDK reads it
 * (the last `t=` wins); null when it has none.
 */
export function signedTimestampOf(header: string): number | null {
  let timestamp: number | null = null
  for (const item of header.split(',')) {
    const [key, value] = item.split('=')
    if (key !== 't' || value === undefined || !/^\d{1,15}$/.test(value)) continue
    timestamp = Number(value)
  }
  return timestamp
}

/**
 * Whether a header was signed more than `toleranceSeconds` after `nowMs`. The SDK bounds only a
 * signature's age, so a delivery signed for an hour ahead (a leaked signing key, a replay kept for
 * later) would be accepted for that hour plus the tolerance.
 */
export function isSignedInTheFuture(
  header: string,
  toleranceSeconds: number,
  nowMs: number,
): boolean {
  const timestamp = signedTimestampOf(header)
  return timestamp !== null && timestamp - Math.floor(nowMs / 1000) > toleranceSeconds
}
