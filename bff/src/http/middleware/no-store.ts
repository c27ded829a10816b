import type { MiddlewareHandler } from 'hono'
import { editResponseHeaders } from './response-headers.ts'

/** `Cache-Control: no-store` on every answer: they describe one person's session. */
export function noStore(): MiddlewareHandler {
  return async function noStore(c, next) {
    await next()
    editResponseHeaders(c, (headers) => headers.set('Cache-Control', 'no-store'))
  }
}
