import { CSP_REPORT_GROUP, CSP_REPORT_PATH } from '@tessera/contracts'
import type { MiddlewareHandler } from 'hono'
import { defaultResponseHeaders, editResponseHeaders } from './response-headers.ts'

export interface SecurityHeadersOptions {
  /** Sent on every response; the host page replaces it with its own policy (see csp.ts). */
  contentSecurityPolicy?: string
}

/**
 * Powerful features no page of the app uses, denied to the page and every frame. Not listed, and
 * so left to the browser's default ('self'): clipboard-write (the assistant's copy button).
 */
export const deniedFeatures = [
  'accelerometer',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'hid',
  'idle-detection',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'xr-spatial-tracking',
] as const

const permissionsPolicy = deniedFeatures.map((feature) => `${feature}=()`).join(', ')

/**
 * The headers of Hono's `secureHeaders()` defaults, with X-Frame-Options DENY (it agrees with
 * the host page's frame-ancestors 'none' for browsers without CSP 2). Written out here so they
 * can be set without rebuilding the response (see response-headers.ts).
 */
const secureDefaults: ReadonlyArray<readonly [string, string]> = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
  ['Permissions-Policy', permissionsPolicy],
  // The group the host page's CSP reports to (`report-to`, see csp.ts).
  ['Reporting-Endpoints', `${CSP_REPORT_GROUP}="${CSP_REPORT_PATH}"`],
]

/**
 * Hono's secure headers (nosniff, frame options, referrer policy…) plus a default CSP that lets
 * an API response load nothing, should one ever be opened as a page. A header the route's
 * response has itself (the host page's CSP) is kept; X-Powered-By is removed.
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): MiddlewareHandler {
  const policy = options.contentSecurityPolicy ?? "default-src 'none'; frame-ancestors 'none'"
  const headersToSet = [...secureDefaults, ['Content-Security-Policy', policy] as const]
  return async function securityHeaders(c, next) {
    const setOnNode = defaultResponseHeaders(c, headersToSet)
    await next()
    if (setOnNode) {
      if (c.res.headers.has('X-Powered-By'))
        editResponseHeaders(c, (headers) => headers.delete('X-Powered-By'))
      return
    }
    editResponseHeaders(c, (headers) => {
      for (const [name, value] of headersToSet) if (!headers.has(name)) headers.set(name, value)
      headers.delete('X-Powered-By')
    })
  }
}
