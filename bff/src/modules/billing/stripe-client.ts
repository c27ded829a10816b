import { ApiError } from '@tessera/contracts'
import Stripe from 'stripe'

/**
 * The BFF's two Stripe clients (docs/decisions/007): one for calls a person is waiting on, one
 * for background work. Both use the SDK's fetch client, so nothing here needs Node's `http`.
 */
export interface StripeClients {
  /** Checkout, portal, the return page, a webhook's re-fetch: a short timeout, one quick retry. */
  interactive: Stripe
  /** Reconcile and other work nobody watches: the SDK's defaults (80 s, 2 network retries). */
  background: Stripe
}

/** Per attempt; with one retry and the SDK's 0.5 s back-off a person waits 6.5 s at worst. */
export const interactiveTimeoutMs = 3_000
export const interactiveMaxRetries = 1

export interface StripeClientOptions {
  /** Stripe's API origin (`STRIPE_API_URL`): `https://api.stripe.com` or the local stand-in. */
  apiUrl: string
  secretKey: string
  /** How requests are sent; tests pass the stand-in's in-process `app.request`. */
  fetch?: typeof fetch
}

export function createStripeClients(options: StripeClientOptions): StripeClients {
  const url = new URL(options.apiUrl)
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  const base: Stripe.StripeConfig = {
    host: url.hostname,
    port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port),
    protocol,
    httpClient: Stripe.createFetchHttpClient(options.fetch),
    // Stripe's own telemetry header about earlier requests: nothing the stand-in or we use.
    telemetry: false,
  }
  return {
    interactive: new Stripe(options.secretKey, {
      ...base,
      timeout: interactiveTimeoutMs,
      maxNetworkRetries: interactiveMaxRetries,
    }),
    background: new Stripe(options.secretKey, base),
  }
}

/** Whether Stripe said the object does not exist (a 404 `resource_missing`). */
export function isStripeMissing(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeError &&
    (error.code === 'resource_missing' || error.statusCode === 404)
  )
}

/**
 * Whether a failed Stripe call may succeed if tried again later: the network, a timeout,
 * Stripe's 5xx, rate limits and lock conflicts. Anything else is our request's fault.
 */
export function isStripeTransient(error: unknown): boolean {
  if (error instanceof Stripe.errors.StripeConnectionError) return true
  if (error instanceof Stripe.errors.StripeRateLimitError) return true
  if (error instanceof Stripe.errors.StripeAPIError) return true
  if (error instanceof Stripe.errors.StripeError) {
    const status = error.statusCode ?? 0
    return status === 409 || status === 429 || status >= 500
  }
  return false
}

function isTimeout(error: InstanceType<typeof Stripe.errors.StripeConnectionError>): boolean {
  const detail: unknown = error.detail
  const code =
    typeof detail === 'object' && detail !== null && 'code' in detail ? detail.code : undefined
  return code === 'ETIMEDOUT' || /timeout/i.test(error.message)
}

/**
 * Runs a Stripe call a person is waiting on: a timeout becomes `upstream_timeout`, any other
 * transient failure `upstream_unavailable`, so the page can say "try again in a minute". Other
 * errors (a bad request: our bug) go up unchanged, to be logged and shown as `internal`.
 */
export async function callStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw toUpstreamError(error)
  }
}

/** The catalogue error for a transient Stripe failure; the error itself otherwise. */
export function toUpstreamError(error: unknown): unknown {
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return new ApiError(isTimeout(error) ? 'upstream_timeout' : 'upstream_unavailable', {
      details: { service: 'stripe' },
    })
  }
  if (isStripeTransient(error)) {
    return new ApiError('upstream_unavailable', { details: { service: 'stripe' } })
  }
  return error
}
