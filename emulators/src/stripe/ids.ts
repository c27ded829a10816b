const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

function randomChars(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length))
  let out = ''
  // 62 does not divide 256; the slight bias is irrelevant for opaque test ids.
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length]
  return out
}

/** An id in Stripe's style: `cus_` followed by random base62 characters. */
export function newId(prefix: string, length = 24): string {
  return `${prefix}_${randomChars(length)}`
}

/** The `Request-Id` Stripe sends on every response. */
export function newRequestId(): string {
  return newId('req', 14)
}
