import type { ErrorCode, FieldIssue } from '@tessera/contracts/errors'

/**
 * What a failed `platform.api.fetch` throws, read by shape. The host throws its own copy of the
 * contracts' `ApiError` class, which is not this bundle's copy, so `instanceof` cannot be used
 * across the federation boundary (and importing the class would bring zod into every chunk).
 */
export interface ApiErrorLike {
  code: ErrorCode
  message: string
  status: number
  requestId: string | undefined
  details: Record<string, unknown> | undefined
}

export function asApiError(error: unknown): ApiErrorLike | null {
  if (!(error instanceof Error) || error.name !== 'ApiError') return null
  const candidate = error as Error & Partial<Record<keyof ApiErrorLike, unknown>>
  if (typeof candidate.code !== 'string' || typeof candidate.status !== 'number') return null
  const details =
    typeof candidate.details === 'object' && candidate.details !== null
      ? (candidate.details as Record<string, unknown>)
      : undefined
  return {
    code: candidate.code as ErrorCode,
    message: candidate.message,
    status: candidate.status,
    requestId: typeof candidate.requestId === 'string' ? candidate.requestId : undefined,
    details,
  }
}

/** The field issues of a `validation_failed` (or any) error: `details.issues`. */
export function issuesOf(error: ApiErrorLike): FieldIssue[] {
  const issues = error.details?.issues
  if (!Array.isArray(issues)) return []
  return issues.filter(
    (issue): issue is FieldIssue =>
      typeof issue === 'object' &&
      issue !== null &&
      typeof (issue as FieldIssue).path === 'string' &&
      typeof (issue as FieldIssue).message === 'string',
  )
}

/** Seconds to wait after `rate_limited` (`details.retryAfterSeconds`), at least one. */
export function retryAfterOf(details: Record<string, unknown> | undefined): number | null {
  const seconds = details?.retryAfterSeconds
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? Math.max(1, Math.ceil(seconds))
    : null
}

/** Whether a failure is the caller's own abort (Stop, leaving the page), not an outage. */
export function isAbort(error: unknown): boolean {
  return (
    (error instanceof DOMException || error instanceof Error) &&
    (error.name === 'AbortError' || error.name === 'TimeoutError')
  )
}
