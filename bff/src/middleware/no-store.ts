import type { MiddlewareHandler } from 'hono'

/** `Cache-Control: no-store` on every answer: they describe one person's session. */
export function noStore(): MiddlewareHandler {
  return async function noStore(c, next) {
    await next()
    c.header('Cache-Control', 'no-store')
  }
}
