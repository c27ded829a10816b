import { ApiError } from '@tessera/contracts'
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/** Refuses a body over `maxBytes` with `payload_too_large` (413), before it is parsed. */
export function bodySize(options: { maxBytes: number }): MiddlewareHandler {
  const handler = bodyLimit({
    maxSize: options.maxBytes,
    onError: () => {
      throw new ApiError('payload_too_large', { details: { limitBytes: options.maxBytes } })
    },
  })
  return async function bodySize(c, next) {
    // Reading `body` makes @hono/node-server build a full Request (with an AbortController) for
    // every request; GET and HEAD have no body to measure.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    return handler(c, next)
  }
}
