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
 * the host page's frame-ancestors 'none' for browsers without CSP 2), in two sets. Written out
 * here so they can be set without rebuilding the response (see response-headers.ts).
 *
 * On every response, what protects any resource (OWASP's list for a REST API, with CORP against
 * cross-origin no-cors reads and the referrer policy a redirect follows):
 */
const everyResponse: ReadonlyArray<readonly [string, string]> = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
]

/**
 * On a document (an HTML page) only: what governs a browsing context, its features, its
 * reports. On an API answer or a script they do nothing (513 bytes a response, decision 052).
 */
const documentOnly: ReadonlyArray<readonly [string, string]> = [
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
  ['Permissions-Policy', permissionsPolicy],
  // The group the host page's CSP reports to (`report-to`, see csp.ts).
  ['Reporting-Endpoints', `${CSP_REPORT_GROUP}="${CSP_REPORT_PATH}"`],
]

const isDocument = (headers: Headers): boolean =>
  headers.get('Content-Type')?.startsWith('text/html') === true

/**
 * Hono's secure headers (nosniff, frame options, referrer policy…) plus a default CSP that lets
 * an API response load nothing, should one ever be opened as a page; an HTML page also gets the
 * document's set. A header the route's response has itself (the host page's CSP) is kept;
 * X-Powered-By is removed.
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): MiddlewareHandler {
  const policy = options.contentSecurityPolicy ?? "default-src 'none'; frame-ancestors 'none'"
  const headersToSet = [...everyResponse, ['Content-Security-Policy', policy] as const]
  const documentHeadersToSet = [...headersToSet, ...documentOnly]
  return async function securityHeaders(c, next) {
    const setOnNode = defaultResponseHeaders(c, headersToSet)
    await next()
    const headers = c.res.headers
    const document = isDocument(headers)
    if (setOnNode) {
      if (document) defaultResponseHeaders(c, documentOnly)
      if (headers.has('X-Powered-By'))
        editResponseHeaders(c, (edited) => edited.delete('X-Powered-By'))
      return
    }
    editResponseHeaders(c, (edited) => {
      for (const [name, value] of document ? documentHeadersToSet : headersToSet)
        if (!edited.has(name)) edited.set(name, value)
      edited.delete('X-Powered-By')
    })
  }
}
