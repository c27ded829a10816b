import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'
import { editResponseHeaders } from './response-headers.ts'

export interface RequestIdOptions {
  headerName?: string
  /** Incoming ids that do not match are replaced, so logs never carry a client's junk. */
  accept?: RegExp
  generate?: () => string
}

/** Gives every request an id (`x-request-id`), echoed in the response, logs and error bodies. */
export function requestId(options: RequestIdOptions = {}): MiddlewareHandler<AppEnv> {
  const headerName = options.headerName ?? 'x-request-id'
  const accept = options.accept ?? /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/
  const generate = options.generate ?? (() => crypto.randomUUID())
  return async function requestId(c, next) {
    const incoming = c.req.header(headerName)
    const id = incoming !== undefined && accept.test(incoming) ? incoming : generate()
    c.set('requestId', id)
    await next()
    // Set on the response the route returned, whatever built it (a static file, a stream).
    editResponseHeaders(c, (headers) => headers.set(headerName, id))
  }
}
