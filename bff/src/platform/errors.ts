import '@tessera/contracts/zod-messages'
import { ApiError, errorCatalogue } from '@tessera/contracts'
import type { ErrorBody, ErrorCode, FieldIssue } from '@tessera/contracts'
import { HTTPException } from 'hono/http-exception'
import { z } from 'zod/mini'

/** Turns zod issues into the catalogue's `details.issues` (`path` joined with dots). */
export function toFieldIssues(error: z.core.$ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }))
}

/** A `validation_failed` error carrying the field issues. */
export function validationFailed(issues: FieldIssue[] | z.core.$ZodError): ApiError {
  const list = issues instanceof z.core.$ZodError ? toFieldIssues(issues) : issues
  return new ApiError('validation_failed', { details: { issues: list } })
}

function codeForStatus(status: number): ErrorCode {
  // A 400 from Hono's internals is a request we could not understand: the catalogue calls that
  // validation_failed (422).
  if (status === 400) return 'validation_failed'
  const match = (Object.keys(errorCatalogue) as ErrorCode[]).find(
    (code) => errorCatalogue[code].status === status,
  )
  return match ?? 'internal'
}

/** Network failures of a connection to a service (the database, most of all). */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
])

/**
 * Whether an error (or one it was caused by) says a service could not be reached: a refused or cut
 * connection, or PostgreSQL's connection and shutdown classes (SQLSTATE 08xxx, 57P01–57P03).
 */
export function isConnectionFailure(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string') {
      if (connectionCodes.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code))
        return true
    }
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}

/**
 * Maps anything thrown to a catalogue error. `expected` is false for errors nobody threw on
 * purpose: those are logged with their stack and shown to people only as `internal`.
 */
export function toApiError(error: unknown): { apiError: ApiError; expected: boolean } {
  if (error instanceof ApiError) return { apiError: error, expected: error.status < 500 }
  if (error instanceof z.core.$ZodError)
    return { apiError: validationFailed(error), expected: true }
  if (error instanceof HTTPException) {
    const code = codeForStatus(error.status)
    return { apiError: new ApiError(code), expected: code !== 'internal' }
  }
  // The database (or another service) is down: people are told to try again, not that we broke.
  if (isConnectionFailure(error))
    return { apiError: new ApiError('upstream_unavailable'), expected: false }
  return { apiError: new ApiError('internal'), expected: false }
}

/** The JSON body of an error response; `internal` never carries details. */
export function toErrorBody(error: ApiError, requestId: string): ErrorBody {
  // An internal error's own message may name internals; people get the catalogue's sentence.
  const message = error.code === 'internal' ? errorCatalogue.internal.message : error.message
  const body: ErrorBody = { error: { code: error.code, message, requestId } }
  if (error.details !== undefined && error.code !== 'internal') body.error.details = error.details
  return body
}

/** A catalogue error that brings response headers of its own (the `RateLimit` fields of a 429). */
export class ApiErrorWithHeaders extends ApiError {
  readonly headers: Record<string, string>

  constructor(
    code: ErrorCode,
    options: {
      message?: string
      details?: Record<string, unknown>
      headers: Record<string, string>
    },
  ) {
    super(code, options)
    this.headers = options.headers
  }
}

/** Headers that go with some codes: when to retry, which methods are allowed. */
export function errorHeaders(error: ApiError): Record<string, string> {
  const headers: Record<string, string> =
    error instanceof ApiErrorWithHeaders ? { ...error.headers } : {}
  const retryAfter = error.details?.retryAfterSeconds
  if (typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter)
  // A 429 always says when to come back: a minute, when nothing better is known.
  if (error.status === 429 && headers['Retry-After'] === undefined) headers['Retry-After'] = '60'
  const allow = error.details?.allow
  if (Array.isArray(allow)) headers.Allow = allow.join(', ')
  return headers
}
