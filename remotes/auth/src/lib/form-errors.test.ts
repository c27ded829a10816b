import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '@tessera/contracts'
import { describeFailure, rateLimitSentence } from './form-errors.ts'

const issues = (...list: Array<[string, string]>) => ({
  details: { issues: list.map(([path, message]) => ({ path, message })) },
})

describe('describeFailure', () => {
  it('puts each issue next to the field its path names, with no alert when all are placed', () => {
    const error = new ApiError(
      'validation_failed',
      issues(['email', 'Bad email.'], ['password', 'Too short.']),
    )
    expect(describeFailure(error, ['email', 'password'])).toEqual({
      fieldErrors: { email: 'Bad email.', password: 'Too short.' },
      alert: null,
    })
  })

  it('turns issues about no field of the form into the alert', () => {
    const error = new ApiError('validation_failed', issues(['', 'The body is not valid JSON.']))
    const failure = describeFailure(error, ['email'])
    expect(failure.fieldErrors).toEqual({})
    expect(failure.alert?.message).toBe('The body is not valid JSON.')
  })

  it('never says which of email or password was wrong', () => {
    const failure = describeFailure(new ApiError('invalid_credentials'), ['email', 'password'])
    expect(failure.fieldErrors).toEqual({})
    expect(failure.alert?.message).toMatch(/email address or password is not correct.*reset/i)
  })

  it('puts email_taken next to the email field even without an issue', () => {
    const failure = describeFailure(new ApiError('email_taken'), ['email', 'password'])
    expect(failure.fieldErrors.email).toMatch(/already uses this email/)
    expect(failure.alert).toBeNull()
  })

  it('says how many seconds to wait when rate limited', () => {
    const error = new ApiError('rate_limited', { details: { retryAfterSeconds: 42 } })
    const failure = describeFailure(error, ['email'])
    expect(failure.alert).toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 42,
      message: 'Too many attempts in a short time. Try again in 42 seconds.',
    })
    expect(rateLimitSentence(1)).toBe('Too many attempts in a short time. Try again in 1 second.')
    expect(rateLimitSentence(0)).toBe('You can try again now.')
  })

  it('offers a reload for csrf_failed and a sign-in link for a revoked session', () => {
    expect(describeFailure(new ApiError('csrf_failed'), []).alert?.action).toEqual({
      kind: 'reload',
    })
    expect(describeFailure(new ApiError('session_revoked'), []).alert?.action).toEqual({
      kind: 'link',
      label: 'Sign in',
      to: '/auth/sign-in',
    })
  })

  it('keeps the request id so people can quote it', () => {
    const error = new ApiError('internal', { requestId: 'req-9' })
    expect(describeFailure(error, []).alert).toMatchObject({ code: 'internal', requestId: 'req-9' })
  })

  it('reads an error thrown by another copy of the ApiError class, by its shape', () => {
    // The host's ApiError is not this bundle's class; only its shape can be trusted.
    const foreign = Object.assign(new Error('An account already uses this email address.'), {
      name: 'ApiError',
      code: 'email_taken',
      status: 409,
      requestId: 'r',
      details: { issues: [{ path: 'email', message: 'Taken.' }] },
    })
    expect(describeFailure(foreign, ['email']).fieldErrors).toEqual({ email: 'Taken.' })
  })

  it('shows something sensible, and logs, for a failure outside the catalogue', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const failure = describeFailure(new TypeError('x is undefined'), ['email'])
    expect(failure.alert).toEqual({
      message: 'Something went wrong. Try again in a moment.',
      code: null,
    })
    expect(log).toHaveBeenCalledOnce()
  })
})
