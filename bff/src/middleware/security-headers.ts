import type { MiddlewareHandler } from 'hono'
import { secureHeaders } from 'hono/secure-headers'

export interface SecurityHeadersOptions {
  /** Sent on every response; the host page replaces it with its own policy (see csp.ts). */
  contentSecurityPolicy?: string
}

/**
 * Hono's secure headers (nosniff, frame options, referrer policy…) plus a default CSP that lets
 * an API response load nothing, should one ever be opened as a page.
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): MiddlewareHandler {
  const policy = options.contentSecurityPolicy ?? "default-src 'none'; frame-ancestors 'none'"
  // DENY agrees with the host page's frame-ancestors 'none' for browsers without CSP 2.
  const handler = secureHeaders({ overwrite: false, xFrameOptions: 'DENY' })
  return async function securityHeaders(c, next) {
    await handler(c, next)
    if (!c.res.headers.has('Content-Security-Policy')) {
      c.res.headers.set('Content-Security-Policy', policy)
    }
  }
}
