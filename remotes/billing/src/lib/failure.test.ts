import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '@tessera/contracts'
import { describeFailure } from './failure.ts'

describe('describeFailure', () => {
  it('says what did not happen, why, and keeps the code and request id to quote', () => {
    const failure = describeFailure(
      new ApiError('upstream_timeout', { requestId: 'req-7' }),
      'Checkout could not be opened.',
    )
    expect(failure).toEqual({
      message:
        'Checkout could not be opened. The payment service took too long to answer. Try again in a minute.',
      code: 'upstream_timeout',
      requestId: 'req-7',
    })
  })

  it('offers the portal to someone who already has a subscription', () => {
    const failure = describeFailure(new ApiError('already_subscribed'), 'Checkout failed.')
    expect(failure.action).toBe('portal')
    expect(failure.message).toMatch(/billing portal/)
  })

  it('offers signing in again when the session is gone, and a reload for csrf_failed', () => {
    expect(describeFailure(new ApiError('session_revoked'), 'x').action).toBe('sign-in')
    expect(describeFailure(new ApiError('unauthenticated'), 'x').action).toBe('sign-in')
    expect(describeFailure(new ApiError('csrf_failed'), 'x').action).toBe('reload')
  })

  it('falls back to the catalogue sentence for codes without a billing sentence', () => {
    expect(describeFailure(new ApiError('not_found'), 'Lead.').message).toBe(
      'Lead. There is nothing at this address.',
    )
  })

  it('reads an error thrown by another copy of the ApiError class, by its shape', () => {
    const foreign = Object.assign(new Error('Busy.'), {
      name: 'ApiError',
      code: 'rate_limited',
      status: 429,
      requestId: 'r',
    })
    expect(describeFailure(foreign, 'Lead.').code).toBe('rate_limited')
  })

  it('shows something sensible, and logs, for a failure outside the catalogue', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    expect(describeFailure(new TypeError('x is undefined'), 'Lead.')).toEqual({
      message: 'Lead. Something went wrong. Try again in a moment.',
      code: null,
    })
    expect(log).toHaveBeenCalledOnce()
    log.mockRestore()
  })
})
