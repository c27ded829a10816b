import { AuthApiError, AuthRetryableFetchError, AuthWeakPasswordError } from '@supabase/supabase-js'
import { ApiError } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { isSessionGone, toApiErrorFromAuth } from './auth-errors.ts'

const api = (status: number, code: string, message = 'x') => new AuthApiError(message, status, code)

function mapped(error: unknown, fields?: Parameters<typeof toApiErrorFromAuth>[1]) {
  const result = toApiErrorFromAuth(error, fields)
  if (!(result instanceof ApiError)) throw new Error(`not mapped: ${String(result)}`)
  return { code: result.code, details: result.details }
}

describe('toApiErrorFromAuth', () => {
  it('maps GoTrue codes to catalogue codes, next to the right field', () => {
    expect(mapped(api(400, 'invalid_credentials')).code).toBe('invalid_credentials')
    expect(mapped(api(403, 'otp_expired')).code).toBe('link_expired')
    expect(mapped(api(422, 'email_exists'), { email: 'newEmail' })).toEqual({
      code: 'email_taken',
      details: {
        issues: [{ path: 'newEmail', message: 'An account already uses this email address.' }],
      },
    })
    expect(
      mapped(
        new AuthWeakPasswordError('Password should be at least 12 characters.', 422, ['length']),
      ),
    ).toEqual({
      code: 'weak_password',
      details: {
        issues: [{ path: 'password', message: 'Password should be at least 12 characters.' }],
      },
    })
    expect(mapped(api(422, 'same_password'), { password: 'newPassword' }).details).toEqual({
      issues: [
        { path: 'newPassword', message: 'Choose a password different from your current one.' },
      ],
    })
    expect(mapped(api(400, 'refresh_token_already_used')).code).toBe('session_revoked')
    expect(mapped(api(400, 'user_banned')).code).toBe('forbidden')
  })

  it('turns Auth’s rate limits into rate_limited with the seconds Auth named', () => {
    expect(
      mapped(
        api(
          429,
          'over_email_send_rate_limit',
          'For security purposes, you can only request this after 27 seconds.',
        ),
      ),
    ).toEqual({ code: 'rate_limited', details: { retryAfterSeconds: 27 } })
    expect(mapped(api(429, 'over_request_rate_limit', 'slow down')).details).toEqual({
      retryAfterSeconds: 60,
    })
  })

  it('names the field of a GoTrue validation sentence', () => {
    expect(
      mapped(api(400, 'validation_failed', 'Unable to validate email address: invalid format'))
        .details,
    ).toEqual({
      issues: [{ path: 'email', message: 'Unable to validate email address: invalid format' }],
    })
  })

  it('calls an unreachable or failing Auth upstream_unavailable, a slow one upstream_timeout', () => {
    expect(mapped(new AuthRetryableFetchError('fetch failed', 0)).code).toBe('upstream_unavailable')
    expect(
      mapped(new AuthRetryableFetchError('The operation was aborted due to timeout', 0)).code,
    ).toBe('upstream_timeout')
  })

  it('leaves anything else to become a logged internal error', () => {
    const surprise = new Error('boom')
    expect(toApiErrorFromAuth(surprise)).toBe(surprise)
    expect(toApiErrorFromAuth(api(418, 'teapot'))).toBeInstanceOf(AuthApiError)
  })
})

describe('isSessionGone', () => {
  it('is true only for answers that end a session for good', () => {
    expect(isSessionGone(api(400, 'refresh_token_not_found'))).toBe(true)
    expect(isSessionGone(api(403, 'session_not_found'))).toBe(true)
    expect(isSessionGone(new AuthRetryableFetchError('fetch failed', 0))).toBe(false)
    expect(isSessionGone(api(400, 'invalid_credentials'))).toBe(false)
  })
})
