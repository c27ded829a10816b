import type { Context, MiddlewareHandler } from 'hono'
import { rateLimitHeaders, rateLimited } from '../../platform/rate-limiter.ts'
import type { RateLimiter } from '../../platform/rate-limiter.ts'

export interface RateLimitOptions {
  limiter: RateLimiter
  /**
   * The client's key: the connection's address from the runtime entry. Headers such as
   * x-forwarded-for are not trusted, as any client can set them.
   */
  keyOf?: (c: Context) => string | undefined
}

/**
 * Answers `rate_limited` (429 with Retry-After) once a client is over its limit; every answer
 * carries the draft `RateLimit-Policy` and `RateLimit` fields.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const keyOf = options.keyOf ?? (() => undefined)
  return async function rateLimit(c, next) {
    // Without a runtime address (in-process tests) every client shares one bucket.
    const decision = await options.limiter.hit(keyOf(c) ?? 'unknown-client')
    if (!decision.allowed) throw rateLimited(options.limiter, decision)
    if (options.limiter.policy !== undefined) {
      for (const [name, value] of Object.entries(
        rateLimitHeaders(options.limiter.policy, decision),
      ))
        c.header(name, value)
    }
    return next()
  }
}
