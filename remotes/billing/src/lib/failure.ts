import type { ErrorCode } from '@tessera/contracts/errors'
import { asApiError } from '@tessera/plugin-react/api-error'

/** A next step offered beside a failure. */
export type FailureAction = 'sign-in' | 'reload' | 'portal'

/** A failure as the billing pages show it: what went wrong, what to do, and a code to quote. */
export interface Failure {
  message: string
  code: ErrorCode | null
  requestId?: string
  action?: FailureAction
}

/** Sentences for codes whose catalogue message does not say what to do next here. */
const sentences: Partial<Record<ErrorCode, string>> = {
  already_subscribed:
    'You already have a subscription. Change your plan in the billing portal instead.',
  upstream_unavailable: 'The payment service is not answering right now. Try again in a minute.',
  upstream_timeout: 'The payment service took too long to answer. Try again in a minute.',
  unauthenticated: 'You are signed out. Sign in again to continue.',
  session_revoked: 'You were signed out on this device. Sign in again to continue.',
  csrf_failed: 'This page could not prove it came from Tessera. Reload the page and try again.',
  rate_limited: 'Too many attempts in a short time. Wait a moment and try again.',
  internal:
    'Something went wrong on our side. Try again; if it keeps happening, quote the code below.',
}

const actions: Partial<Record<ErrorCode, FailureAction>> = {
  already_subscribed: 'portal',
  unauthenticated: 'sign-in',
  session_revoked: 'sign-in',
  csrf_failed: 'reload',
}

/**
 * Turns whatever a billing call threw into sentences: `lead` says what did not happen ("Checkout
 * could not be opened."), the rest says why and what to do.
 */
export function describeFailure(error: unknown, lead: string): Failure {
  const apiError = asApiError(error)
  if (apiError === null) {
    console.error(`${lead} The failure is not one the catalogue describes`, error)
    return { message: `${lead} Something went wrong. Try again in a moment.`, code: null }
  }
  const action = actions[apiError.code]
  return {
    message: `${lead} ${sentences[apiError.code] ?? apiError.message}`,
    code: apiError.code,
    ...(apiError.requestId ? { requestId: apiError.requestId } : {}),
    ...(action ? { action } : {}),
  }
}
