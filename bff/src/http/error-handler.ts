import type { ApiError, ErrorCode, errorCatalogue } from '@tessera/contracts'
import type { Context, ErrorHandler } from 'hono'
import type { AppEnv } from './app-env.ts'
import { errorHeaders, toApiError, toErrorBody } from '../platform/errors.ts'
import type { Logger } from '../platform/logger.ts'
import { loggablePath } from './middleware/access-log.ts'

/** The response for a catalogue error: its status, JSON body and headers (Retry-After, Allow). */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  // The request-id middleware may not have run (a failure before it): make one up rather than fail.
  const requestId = c.get('requestId') ?? crypto.randomUUID()
  c.header('Cache-Control', 'no-store')
  return c.json(toErrorBody(error, requestId), error.status as CatalogueStatus, errorHeaders(error))
}

/** ApiError.status is a plain number; by construction it is one of the catalogue's statuses. */
type CatalogueStatus = (typeof errorCatalogue)[ErrorCode]['status']

/** The app's one `onError`: every failure becomes a catalogue error; surprises are logged. */
export function createErrorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return function onError(error, c) {
    const { apiError, expected } = toApiError(error)
    if (!expected) {
      logger.error('request failed', {
        error,
        method: c.req.method,
        path: loggablePath(c.req.path),
        requestId: c.get('requestId'),
      })
    }
    return errorResponse(c, apiError)
  }
}
