import { ApiError, legacyCspReportSchema, reportingApiBatchSchema } from '@tessera/contracts'
import type { CspViolation } from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from './app-env.ts'
import type { Clock } from '../platform/clock.ts'
import { validationFailed } from '../platform/errors.ts'
import type { Logger } from '../platform/logger.ts'
import { localLimiters } from '../platform/rate-limiter.ts'
import type { Limiters } from '../platform/rate-limiter.ts'
import { bodySize } from './middleware/body-size.ts'
import { rateLimit } from './middleware/rate-limit.ts'

export interface CspReportOptions {
  logger: Logger
  clock: Clock
  /** The client's network address (see AppDeps.clientKey). */
  clientKey?: (c: Context) => string | undefined
  /** Report bodies per client per minute; a page that breaks its CSP in a loop sends many. */
  ratePerMinute?: number
  /** Where the limit is counted: this process by default, or shared by the replicas. */
  limiters?: Limiters
  /** A report is a few URLs and a policy: anything larger is not one. */
  maxBytes?: number
}

const legacyType = 'application/csp-report'
const reportingApiType = 'application/reports+json'

/**
 * `POST /api/csp-reports`: the host page's CSP violations, from browsers, in either format
 * (`report-uri`'s `application/csp-report`, `report-to`'s `application/reports+json`). Each
 * violation is logged; nothing is stored. Browsers send these on their own, without the CSRF
 * header (the path is exempt in csrf.ts); the route acts on nothing but the log.
 */
export function cspReportRoutes(options: CspReportOptions) {
  const { logger } = options
  const limiters = options.limiters ?? localLimiters(options.clock)
  const limiter = limiters({
    name: 'csp-reports',
    limit: options.ratePerMinute ?? 60,
    windowMs: 60_000,
  })
  return new Hono<AppEnv>().post(
    '/',
    rateLimit({ limiter, keyOf: options.clientKey }),
    bodySize({ maxBytes: options.maxBytes ?? 16 * 1024 }),
    async function cspReport(c) {
      const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
      const schema =
        mediaType === legacyType
          ? legacyCspReportSchema
          : mediaType === reportingApiType
            ? reportingApiBatchSchema
            : null
      if (schema === null) {
        throw new ApiError('unsupported_media_type', {
          message: `A CSP report must be sent as ${legacyType} or ${reportingApiType}.`,
        })
      }
      let body: unknown
      try {
        body = JSON.parse(await c.req.text())
      } catch {
        // The parse error's text depends on the engine; the issue says what matters.
        throw validationFailed([{ path: '', message: 'The body is not valid JSON.' }])
      }
      const parsed = schema.safeParse(body)
      if (!parsed.success) throw validationFailed(parsed.error)
      const requestId = c.get('requestId')
      for (const violation of parsed.data satisfies CspViolation[])
        logger.warn('csp violation', { ...violation, requestId })
      return c.body(null, 204)
    },
  )
}
