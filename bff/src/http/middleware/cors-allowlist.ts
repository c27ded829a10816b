import type { MiddlewareHandler } from 'hono'
import type { OriginAllowlist } from '../origin-allowlist.ts'
import { editResponseHeaders } from './response-headers.ts'

export interface CorsAllowlistOptions {
  origins: OriginAllowlist
  maxAgeSeconds?: number
}

const allowMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].join(',')
const allowHeaders = ['content-type', 'x-tessera-csrf', 'x-request-id'].join(',')
const exposeHeaders = ['x-request-id', 'retry-after'].join(',')

/**
 * CORS with credentials, for the allowlisted origins only (the host's dev server, say). The
 * headers are those of Hono's `cors()`, set on the route's response after it is built rather than
 * on a placeholder before (which makes Hono rebuild every response; see response-headers.ts).
 */
export function corsAllowlist(options: CorsAllowlistOptions): MiddlewareHandler {
  const maxAge = String(options.maxAgeSeconds ?? 600)
  return async function corsAllowlist(c, next) {
    const origin = c.req.header('origin')
    const allowOrigin = origin !== undefined && options.origins.allows(origin) ? origin : null
    if (c.req.method === 'OPTIONS') {
      // A preflight: answered here, for any path under the middleware.
      return c.body(null, 204, {
        ...(allowOrigin === null
          ? {}
          : {
              'Access-Control-Allow-Origin': allowOrigin,
              'Access-Control-Allow-Credentials': 'true',
            }),
        'Access-Control-Expose-Headers': exposeHeaders,
        'Access-Control-Max-Age': maxAge,
        'Access-Control-Allow-Methods': allowMethods,
        'Access-Control-Allow-Headers': allowHeaders,
        Vary: 'Origin, Access-Control-Request-Headers',
      })
    }
    await next()
    editResponseHeaders(c, (headers) => {
      // Credentials only go with an origin the allowlist names: with no Allow-Origin they would be
      // meaningless, and they would tell any site that this API takes cookies.
      if (allowOrigin !== null) {
        headers.set('Access-Control-Allow-Origin', allowOrigin)
        headers.set('Access-Control-Allow-Credentials', 'true')
      }
      headers.set('Access-Control-Expose-Headers', exposeHeaders)
      headers.append('Vary', 'Origin')
    })
  }
}
