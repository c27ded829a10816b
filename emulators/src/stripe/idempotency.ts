// Idempotency keys as Stripe honours them on POST: the same key with the same parameters replays
// the first response (`Idempotent-Replayed: true`); with other parameters or another endpoint it
// is an `idempotency_error`; while the first request still runs, a 409. Keys live 24 hours of
// emulated time. Validation failures are not saved, so a corrected retry can reuse the key.
import type { Context, MiddlewareHandler } from 'hono'
import type { ApiEnv } from './api-env.ts'
import { StripeApiError, idempotencyError, invalidRequest } from './errors.ts'
import type { StripeState } from './state.ts'

const KEY_LIFETIME = 24 * 60 * 60

export interface IdempotencyOptions {
  state: () => StripeState
  now: () => number
}

/** The request's parameters in a canonical order, so `a=1&b=2` and `b=2&a=1` match. */
function fingerprintOf(raw: string): string {
  return raw
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const eq = pair.indexOf('=')
      const key = eq === -1 ? pair : pair.slice(0, eq)
      const value = eq === -1 ? '' : pair.slice(eq + 1)
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '))
        } catch {
          // Already rejected by the form parser; keep the raw text so the fingerprint is stable.
          return s
        }
      }
      return `${decode(key)}=${decode(value)}`
    })
    .sort()
    .join('&')
}

function replayHeaders(
  c: Context<ApiEnv>,
  key: string,
  originalRequest: string,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Idempotent-Replayed': 'true',
    'Original-Request': originalRequest,
    'Idempotency-Key': key,
    'Request-Id': c.get('requestId'),
  }
}

export function idempotency(options: IdempotencyOptions): MiddlewareHandler<ApiEnv> {
  return async function idempotencyKeys(c, next) {
    const key = c.req.header('Idempotency-Key')
    if (c.req.method !== 'POST' || key === undefined) return next()
    if (key.length === 0 || key.length > 255) {
      throw invalidRequest(
        'Invalid Idempotency-Key: it must be between 1 and 255 characters long.',
        'Idempotency-Key',
      )
    }
    const store = options.state().idempotency
    const scope = `${c.get('apiKey')} ${key}`
    const path = new URL(c.req.url).pathname
    const fingerprint = fingerprintOf(c.get('rawParams'))
    const now = options.now()
    const existing = store[scope]
    if (existing && existing.created + KEY_LIFETIME <= now) delete store[scope]
    const entry = store[scope]
    if (entry) {
      if (entry.inFlight) {
        throw new StripeApiError(
          409,
          {
            type: 'invalid_request_error',
            code: 'idempotency_key_in_use',
            message:
              'There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ' +
              `${key}. Please try again later.`,
          },
          false,
        )
      }
      if (entry.method !== c.req.method || entry.path !== path) {
        throw idempotencyError(
          `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${entry.method} ${entry.path}' vs '${c.req.method} ${path}'). Try using a key other than '${key}' if you meant to execute a different request.`,
        )
      }
      if (entry.fingerprint !== fingerprint) {
        throw idempotencyError(
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        )
      }
      return new Response(entry.body, {
        status: entry.status,
        headers: replayHeaders(c, key, entry.requestId),
      })
    }
    store[scope] = {
      method: c.req.method,
      path,
      fingerprint,
      created: now,
      inFlight: true,
      status: 0,
      body: '',
      requestId: c.get('requestId'),
    }
    try {
      await next()
    } finally {
      const saved = store[scope]
      if (saved && c.res && !c.get('notReplayable')) {
        saved.inFlight = false
        saved.status = c.res.status
        saved.body = await c.res.clone().text()
        c.res.headers.set('Idempotency-Key', key)
      } else {
        delete store[scope]
      }
    }
  }
}
