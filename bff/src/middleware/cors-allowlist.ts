import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import type { OriginAllowlist } from '../services/origin-allowlist.ts'

export interface CorsAllowlistOptions {
  origins: OriginAllowlist
  maxAgeSeconds?: number
}

/** CORS with credentials, for the allowlisted origins only (the host's dev server, say). */
export function corsAllowlist(options: CorsAllowlistOptions): MiddlewareHandler {
  const handler = cors({
    origin: (origin) => (options.origins.allows(origin) ? origin : null),
    credentials: true,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['content-type', 'x-tessera-csrf', 'x-request-id'],
    exposeHeaders: ['x-request-id', 'retry-after'],
    maxAge: options.maxAgeSeconds ?? 600,
  })
  return async function corsAllowlist(c, next) {
    return handler(c, next)
  }
}
