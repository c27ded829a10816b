/**
 * Signed operator requests (`POST /api/billing/reconcile`): `Tessera-Signature: t=<unix>,v1=<hex>`,
 * an HMAC-SHA256 of `<t>.<body>` like Stripe's webhook signature, with a key derived from the
 * webhook signing secret. Whoever holds that secret can already forge any webhook, so this gives
 * nobody new powers; the derived key keeps a webhook signature from being replayed here (and the
 * reverse). Web Crypto only, so the app stays Web-standard (docs/decisions/007).
 */
export const ADMIN_SIGNATURE_HEADER = 'tessera-signature'
export const ADMIN_SIGNATURE_TOLERANCE_SECONDS = 300

const encoder = new TextEncoder()

async function hmac(key: Uint8Array | string, message: string): Promise<Uint8Array> {
  const keyBytes = typeof key === 'string' ? encoder.encode(key) : key
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    keyBytes as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(message)))
}

const hex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')

function derivedKey(webhookSecret: string): Promise<Uint8Array> {
  return hmac(webhookSecret, 'tessera billing admin request v1')
}

/** The header value for `body` signed at `timestamp` (unix seconds). */
export async function signAdminRequest(
  webhookSecret: string,
  body: string,
  timestamp: number,
): Promise<string> {
  const signature = await hmac(await derivedKey(webhookSecret), `${timestamp}.${body}`)
  return `t=${timestamp},v1=${hex(signature)}`
}

/** Compares in time independent of where the strings first differ. */
function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** Why a signature is refused, or null when it is good and fresh. */
export async function checkAdminSignature(
  webhookSecret: string,
  body: string,
  header: string | undefined,
  nowSeconds: number,
): Promise<string | null> {
  if (header === undefined || header === '')
    return `The ${ADMIN_SIGNATURE_HEADER} header is missing.`
  const parts = new Map(
    header.split(',').map((part) => {
      const [name = '', ...rest] = part.trim().split('=')
      return [name, rest.join('=')] as const
    }),
  )
  const timestamp = Number(parts.get('t'))
  const given = parts.get('v1')
  if (!Number.isInteger(timestamp) || given === undefined || !/^[0-9a-f]{64}$/.test(given))
    return `The ${ADMIN_SIGNATURE_HEADER} header is not t=<unix time>,v1=<hex signature>.`
  if (Math.abs(nowSeconds - timestamp) > ADMIN_SIGNATURE_TOLERANCE_SECONDS)
    return 'The signature is too old (or from the future): sign the request again.'
  const expected = await signAdminRequest(webhookSecret, body, timestamp)
  return equalInConstantTime(expected, `t=${timestamp},v1=${given}`)
    ? null
    : 'The signature does not match.'
}
