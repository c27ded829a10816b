import { isAuthApiError, isAuthError, isAuthRetryableFetchError } from '@supabase/supabase-js'
import { ApiError } from '@tessera/contracts'

/** Which request field a problem belongs to, so the UI can show it next to that field. */
export interface AuthErrorFields {
  email?: string
  password?: string
}

/** Auth codes meaning the tokens of a session are dead (revoked elsewhere, reused, expired). */
const sessionGoneCodes = new Set([
  'refresh_token_not_found',
  'refresh_token_already_used',
  'session_not_found',
  'session_expired',
  'bad_jwt',
  'no_authorization',
  'user_not_found',
])

/** Whether Auth refused a session's tokens for good (not a passing outage). */
export function isSessionGone(error: unknown): boolean {
  return isAuthApiError(error) && error.code !== undefined && sessionGoneCodes.has(error.code)
}

/** Whether Auth answered that the address or password is wrong. */
export function isInvalidCredentials(error: unknown): boolean {
  return isAuthApiError(error) && error.code === 'invalid_credentials'
}

/** Whether Auth refused because it sent this address an email too recently. */
export function isEmailRateLimited(error: unknown): boolean {
  return (
    isAuthApiError(error) && (error.status === 429 || error.code === 'over_email_send_rate_limit')
  )
}

function retryAfterOf(message: string): number {
  const seconds = /(\d+)\s*seconds?/i.exec(message)?.[1]
  return seconds === undefined ? 60 : Math.max(1, Number(seconds))
}

const issue = (path: string, message: string) => ({ details: { issues: [{ path, message }] } })

/**
 * Maps a Supabase Auth failure (supabase-js's error classes, GoTrue's codes) to a catalogue
 * error, with the sentence next to the right field. Anything unrecognised is returned as it is,
 * so it becomes a logged `internal`.
 */
export function toApiErrorFromAuth(error: unknown, fields: AuthErrorFields = {}): unknown {
  if (!isAuthError(error)) return error
  const email = fields.email ?? 'email'
  const password = fields.password ?? 'password'
  if (isAuthRetryableFetchError(error) || (isAuthApiError(error) && error.status >= 500)) {
    return /timed? ?out|timeout|abort/i.test(error.message)
      ? new ApiError('upstream_timeout')
      : new ApiError('upstream_unavailable')
  }
  if (!isAuthApiError(error) && error.code === undefined) return error
  if (error.code !== undefined && sessionGoneCodes.has(error.code))
    return new ApiError('session_revoked')
  switch (error.code) {
    case 'invalid_credentials':
      return new ApiError('invalid_credentials')
    case 'email_not_confirmed':
      return new ApiError('email_not_confirmed', issue(email, 'Confirm this address first.'))
    case 'weak_password':
      return new ApiError('weak_password', issue(password, error.message))
    case 'same_password':
      return new ApiError(
        'validation_failed',
        issue(password, 'Choose a password different from your current one.'),
      )
    case 'email_exists':
    case 'user_already_exists':
      return new ApiError(
        'email_taken',
        issue(email, 'An account already uses this email address.'),
      )
    case 'otp_expired':
      return new ApiError('link_expired')
    case 'user_banned':
    case 'signup_disabled':
    case 'email_provider_disabled':
    case 'otp_disabled':
      return new ApiError('forbidden', { message: error.message })
    case 'email_address_invalid':
      return new ApiError('validation_failed', issue(email, 'Enter a valid email address.'))
    default:
      break
  }
  if (error.status === 429) {
    return new ApiError('rate_limited', {
      details: { retryAfterSeconds: retryAfterOf(error.message) },
    })
  }
  if (error.code === 'validation_failed' || error.status === 400 || error.status === 422) {
    // GoTrue's sentence names the field it refused.
    const path = /password/i.test(error.message)
      ? password
      : /email/i.test(error.message)
        ? email
        : ''
    return new ApiError('validation_failed', issue(path, error.message))
  }
  return error
}

/** Throws the catalogue error for an Auth failure (see `toApiErrorFromAuth`). */
export function throwAuthError(error: unknown, fields?: AuthErrorFields): never {
  throw toApiErrorFromAuth(error, fields)
}
