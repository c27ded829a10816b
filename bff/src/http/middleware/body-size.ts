import { ApiError } from '@tessera/contracts'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/** Refuses a body over `maxBytes` with `payload_too_large` (413), before it is parsed. */
export function bodySize(options: {
  maxBytes: number
  /** Requests that enforce a limit of their own while they read (uploads). */
  skip?: (c: Context) => boolean
}): MiddlewareHandler {
  const tooLarge = () =>
    new ApiError('payload_too_large', { details: { limitBytes: options.maxBytes } })
  const handler = bodyLimit({
    maxSize: options.maxBytes,
    onError: () => {
      throw tooLarge()
    },
  })
  // Not async: a GET passes on without a promise of its own (a refusal throws all the same).
  return function bodySize(c, next) {
    // Reading `body` makes @hono/node-server build a full Request (with an AbortController and a
    // web stream) for every request; GET and HEAD have no body to measure.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    if (options.skip?.(c) === true) return next()
    // A declared length is the body's length (the server frames the body by it), so it is
    // checked as a number; only a body without one (chunked) is counted as it is read.
    const declared = c.req.header('content-length')
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      const bytes = Number(declared)
      if (!Number.isSafeInteger(bytes) || bytes < 0) return handler(c, next)
      if (bytes > options.maxBytes) throw tooLarge()
      return next()
    }
    return handler(c, next)
  }
}
