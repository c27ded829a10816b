import { ApiError } from '@tessera/contracts'
import type { Context, MiddlewareHandler } from 'hono'
import type { RateLimiter } from '../../platform/rate-limiter.ts'

export interface RateLimitOptions {
  limiter: RateLimiter
  /**
   * The client's key: the connection's address from the runtime entry. Headers such as
   * x-forwarded-for are not trusted, as any client can set them.
   */
  keyOf?: (c: Context) => string | undefined
}

/** Answers `rate_limited` (429 with Retry-After) once a client is over its limit. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const keyOf = options.keyOf ?? (() => undefined)
  return async function rateLimit(c, next) {
    // Without a runtime address (in-process tests) every client shares one bucket.
    const decision = options.limiter.hit(keyOf(c) ?? 'unknown-client')
    if (!decision.allowed) {
      throw new ApiError('rate_limited', {
        details: { retryAfterSeconds: decision.retryAfterSeconds },
      })
    }
    return next()
  }
}
