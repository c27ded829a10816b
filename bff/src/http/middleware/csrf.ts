import { ApiError, CSP_REPORT_PATH } from '@tessera/contracts'
import type { MiddlewareHandler } from 'hono'
import type { OriginAllowlist } from '../origin-allowlist.ts'

export interface CsrfOptions {
  origins: OriginAllowlist
  headerName?: string
  headerValue?: string
  /**
   * Exact paths whose requests prove themselves with a signature over the body (Stripe's
   * webhook, the operator's reconcile) and never act on the session cookie: a cross-site page
   * can forge neither, so CSRF does not apply. Their handlers must not read the session.
   */
  exemptPaths?: readonly string[]
  /**
   * Path prefixes of APIs that authenticate only with a bearer token in the Authorization header
   * (the deploy API) and never read the session cookie. Browsers never attach that header on
   * their own, so a cross-site page has no ambient credential to abuse there.
   */
  exemptPrefixes?: readonly string[]
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Paths browsers post to on their own, without the custom header, whatever the app: CSP violation
 * reports. Their route only logs what it is sent, so a forged report can do no more than a real one.
 */
const browserReportPaths = [CSP_REPORT_PATH]

/**
 * Refuses a state-changing request unless it carries the custom header (which a cross-site
 * form cannot send without a CORS preflight) and an allowlisted Origin. A missing Origin is
 * refused too: browsers send one on every non-GET request, and other clients can add it.
 */
export function csrf(options: CsrfOptions): MiddlewareHandler {
  const headerName = options.headerName ?? 'x-tessera-csrf'
  const headerValue = options.headerValue ?? '1'
  const exempt = new Set([...(options.exemptPaths ?? []), ...browserReportPaths])
  const exemptPrefixes = options.exemptPrefixes ?? []
  // Not async: a GET passes on without a promise of its own (a refusal throws all the same).
  return function csrf(c, next) {
    if (safeMethods.has(c.req.method) || exempt.has(c.req.path)) return next()
    if (exemptPrefixes.some((prefix) => c.req.path.startsWith(prefix))) return next()
    const refuse = (reason: string): never => {
      throw new ApiError('csrf_failed', { details: { reason } })
    }
    if (c.req.header(headerName) !== headerValue) {
      refuse(`The ${headerName} header must be ${headerValue}.`)
    }
    const origin = c.req.header('origin')
    if (origin === undefined) refuse('The request has no Origin header.')
    else if (!options.origins.allows(origin)) refuse(`The origin ${origin} is not allowed.`)
    return next()
  }
}
