import type { ConsoleConflictDetails } from '@tessera/contracts/console'
import type { ErrorCode } from '@tessera/contracts/errors'
import { asApiError } from '@tessera/plugin-react/api-error'
import { formatDateTime } from '@tessera/plugin-react/format'

/** A next step offered beside a failure. */
export type FailureAction = 'sign-in' | 'reload'

/** A failure as the console shows it: what went wrong, what to do, and a code to quote. */
export interface Failure {
  message: string
  code: ErrorCode | null
  requestId?: string
  action?: FailureAction
  /** Set for a 409 `conflict` on a channel move: someone else moved the channel first. */
  conflict?: ConsoleConflictDetails
}

/** Sentences for codes whose catalogue message does not say what to do next here. */
const sentences: Partial<Record<ErrorCode, string>> = {
  forbidden:
    'Only operators can use the console. Ask an operator to grant you the role, then sign in again.',
  unauthenticated: 'You are signed out. Sign in again to continue.',
  session_revoked: 'You were signed out on this device. Sign in again to continue.',
  csrf_failed: 'This page could not prove it came from Tessera. Reload the page and try again.',
  rate_limited: 'Too many requests in a short time. Wait a moment and try again.',
  upstream_unavailable: 'A service the console needs is not answering. Try again in a minute.',
  upstream_timeout: 'A service the console needs took too long to answer. Try again in a minute.',
  internal:
    'Something went wrong on our side. Try again; if it keeps happening, quote the code below.',
}

const actions: Partial<Record<ErrorCode, FailureAction>> = {
  unauthenticated: 'sign-in',
  session_revoked: 'sign-in',
  csrf_failed: 'reload',
}

/** The details of a channel move's 409, if that is what they are. */
function conflictOf(details: Record<string, unknown> | undefined): ConsoleConflictDetails | null {
  if (details === undefined) return null
  const { remote, channel, expectedRevision, revision, changedBy, changedAt } = details
  if (typeof remote !== 'string' || (channel !== 'stable' && channel !== 'canary')) return null
  if (typeof expectedRevision !== 'number' || typeof revision !== 'number') return null
  return {
    remote,
    channel,
    expectedRevision,
    revision,
    changedBy: typeof changedBy === 'string' ? changedBy : null,
    changedAt: typeof changedAt === 'string' ? changedAt : null,
  }
}

/** "Changed by ada@example.com at Nov 26, 2026, 9:05 AM; reload to see it." */
export function conflictSentence(conflict: ConsoleConflictDetails): string {
  const who = conflict.changedBy ?? 'someone else'
  const when = conflict.changedAt === null ? '' : ` at ${formatDateTime(conflict.changedAt)}`
  return `Changed by ${who}${when}; reload to see it.`
}

/**
 * Turns whatever a console call threw into sentences: `lead` says what did not happen ("The
 * remotes could not be loaded."), the rest says why and what to do.
 */
export function describeFailure(error: unknown, lead: string): Failure {
  const apiError = asApiError(error)
  if (apiError === null) {
    console.error(`${lead} The failure is not one the catalogue describes`, error)
    return {
      message: `${lead} The server could not be reached. Check your connection and try again.`,
      code: null,
    }
  }
  const conflict = apiError.code === 'conflict' ? conflictOf(apiError.details) : null
  const action = actions[apiError.code]
  return {
    message: conflict
      ? `${lead} ${conflictSentence(conflict)}`
      : `${lead} ${sentences[apiError.code] ?? apiError.message}`,
    code: apiError.code,
    ...(apiError.requestId ? { requestId: apiError.requestId } : {}),
    ...(action ? { action } : {}),
    ...(conflict ? { conflict } : {}),
  }
}
