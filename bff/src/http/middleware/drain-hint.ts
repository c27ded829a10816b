import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'

/**
 * Tells the request's event stream how to know the process is draining (platform/sse.ts): a
 * stream that ends then adds a short `retry:`, so the browser reconnects soon, to another replica.
 */
export function drainHint(options: { draining: () => boolean }): MiddlewareHandler<AppEnv> {
  return async function drainHint(c, next) {
    c.set('draining', options.draining)
    await next()
  }
}
