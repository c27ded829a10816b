import type { ErrorCode } from '@tessera/contracts/errors'
import { asApiError, issuesOf, retryAfterOf } from '@tessera/plugin-react/api-error'

/** A next step offered beside an error: a link to an app path, or reloading the page. */
export type AlertAction = { kind: 'link'; label: string; to: string } | { kind: 'reload' }

/** The form-level message: what went wrong and what to do next. */
export interface FormAlertContent {
  message: string
  code: ErrorCode | null
  requestId?: string
  /** For `rate_limited`: the form waits this long before it can be sent again. */
  retryAfterSeconds?: number
  action?: AlertAction
}

/** A failure as a form shows it: sentences next to fields, and a form-level alert. */
export interface FormFailure {
  fieldErrors: Partial<Record<string, string>>
  alert: FormAlertContent | null
}

/** Sentences for codes whose catalogue message does not say what to do next on a form. */
const sentences: Partial<Record<ErrorCode, string>> = {
  invalid_credentials:
    'The email address or password is not correct. Check both and try again, or reset your password.',
  email_not_confirmed:
    'Confirm your email address first: open the link in the email we sent you when you signed up.',
  email_taken:
    'An account already uses this email address. Sign in instead, or reset its password.',
  weak_password: 'Choose a stronger password: longer, with a mix of letters, numbers and symbols.',
  csrf_failed: 'This page could not prove it came from Tessera. Reload the page and try again.',
  unauthenticated: 'You are signed out. Sign in again to continue.',
  session_revoked: 'You were signed out on this device. Sign in again to continue.',
  link_expired: 'This link has expired or has already been used. Ask for a new one.',
  internal:
    'Something went wrong on our side. Try again; if it keeps happening, quote the code below.',
}

/** Which field a code is about when the BFF did not name one. */
const defaultField: Partial<Record<ErrorCode, string>> = {
  email_taken: 'email',
  weak_password: 'password',
}

const secondsText = (seconds: number) => (seconds === 1 ? '1 second' : `${seconds} seconds`)

/** "Try again in 30 seconds." — the rate-limit sentence as the countdown runs. */
export function rateLimitSentence(remainingSeconds: number): string {
  return remainingSeconds > 0
    ? `Too many attempts in a short time. Try again in ${secondsText(remainingSeconds)}.`
    : 'You can try again now.'
}

/**
 * Turns whatever a submit threw into what the form shows. Issues whose `path` is one of the
 * form's `fields` go next to that field; everything else becomes one alert with a next step.
 */
export function describeFailure(error: unknown, fields: readonly string[]): FormFailure {
  const apiError = asApiError(error)
  if (apiError === null) {
    console.error('A form failed in a way the catalogue does not describe', error)
    return {
      fieldErrors: {},
      alert: { message: 'Something went wrong. Try again in a moment.', code: null },
    }
  }
  const fieldErrors: Partial<Record<string, string>> = {}
  const unplaced: string[] = []
  for (const issue of issuesOf(apiError)) {
    if (fields.includes(issue.path)) fieldErrors[issue.path] ??= issue.message
    else unplaced.push(issue.message)
  }
  const fallbackField = defaultField[apiError.code]
  if (fallbackField && fields.includes(fallbackField) && fieldErrors[fallbackField] === undefined) {
    fieldErrors[fallbackField] = sentences[apiError.code] ?? apiError.message
  }

  const placed = Object.keys(fieldErrors).length > 0
  const base = {
    code: apiError.code,
    ...(apiError.requestId ? { requestId: apiError.requestId } : {}),
  }
  switch (apiError.code) {
    case 'validation_failed':
      // Every problem sits next to its field: the fields say it all.
      if (placed && unplaced.length === 0) return { fieldErrors, alert: null }
      return {
        fieldErrors,
        alert: { ...base, message: unplaced.length > 0 ? unplaced.join(' ') : apiError.message },
      }
    case 'email_taken':
    case 'weak_password':
      return {
        fieldErrors,
        alert: placed ? null : { ...base, message: sentences[apiError.code] ?? apiError.message },
      }
    case 'rate_limited': {
      const seconds = retryAfterOf(apiError.details) ?? 30
      return {
        fieldErrors,
        alert: { ...base, message: rateLimitSentence(seconds), retryAfterSeconds: seconds },
      }
    }
    case 'csrf_failed':
      return {
        fieldErrors,
        alert: {
          ...base,
          message: sentences.csrf_failed ?? apiError.message,
          action: { kind: 'reload' },
        },
      }
    case 'unauthenticated':
    case 'session_revoked':
      return {
        fieldErrors,
        alert: {
          ...base,
          message: sentences[apiError.code] ?? apiError.message,
          action: { kind: 'link', label: 'Sign in', to: '/auth/sign-in' },
        },
      }
    default:
      return {
        fieldErrors,
        alert: { ...base, message: sentences[apiError.code] ?? apiError.message },
      }
  }
}
