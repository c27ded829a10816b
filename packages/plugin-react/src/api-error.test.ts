import { describe, expect, it } from 'vitest'
import { ApiError } from '@tessera/contracts/errors'
import { asApiError, isAbort, issuesOf, retryAfterOf } from './api-error.ts'

/** The host's copy of the class: another bundle's `ApiError`, so only its shape is shared. */
class ForeignApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly requestId?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super('From the host')
    this.name = 'ApiError'
  }
}

describe('asApiError', () => {
  it('reads an ApiError thrown by another bundle by its shape', () => {
    const read = asApiError(new ForeignApiError('rate_limited', 429, 'req-9', { a: 1 }))
    expect(read).toEqual({
      code: 'rate_limited',
      message: 'From the host',
      status: 429,
      requestId: 'req-9',
      details: { a: 1 },
    })
  })

  it('reads the contracts class with its catalogue message and status', () => {
    const read = asApiError(new ApiError('not_found', { requestId: 'req-1' }))
    expect(read?.code).toBe('not_found')
    expect(read?.status).toBe(404)
    expect(read?.requestId).toBe('req-1')
    expect(read?.details).toBeUndefined()
  })

  it('refuses plain errors, other names and shapes without a code or status', () => {
    expect(asApiError(new Error('boom'))).toBeNull()
    expect(asApiError({ name: 'ApiError', code: 'internal', status: 500 })).toBeNull()
    expect(asApiError(new ForeignApiError('internal', Number.NaN) as Error)).not.toBeNull()
    const noStatus = Object.assign(new Error('x'), { name: 'ApiError', code: 'internal' })
    expect(asApiError(noStatus)).toBeNull()
  })
})

describe('issuesOf', () => {
  it('keeps only well-formed field issues from details.issues', () => {
    const read = asApiError(
      new ApiError('validation_failed', {
        details: { issues: [{ path: 'email', message: 'Enter an email' }, { path: 3 }, null] },
      }),
    )
    expect(read && issuesOf(read)).toEqual([{ path: 'email', message: 'Enter an email' }])
  })

  it('finds no issues when details carry none', () => {
    const read = asApiError(new ApiError('internal'))
    expect(read && issuesOf(read)).toEqual([])
  })
})

describe('retryAfterOf', () => {
  it('rounds the wait up and never says less than one second', () => {
    expect(retryAfterOf({ retryAfterSeconds: 2.2 })).toBe(3)
    expect(retryAfterOf({ retryAfterSeconds: 0 })).toBe(1)
  })

  it('has no answer without a finite number', () => {
    expect(retryAfterOf(undefined)).toBeNull()
    expect(retryAfterOf({ retryAfterSeconds: '5' })).toBeNull()
    expect(retryAfterOf({ retryAfterSeconds: Number.POSITIVE_INFINITY })).toBeNull()
  })
})

describe('isAbort', () => {
  it('tells the caller’s own abort and timeout apart from an outage', () => {
    expect(isAbort(new DOMException('stopped', 'AbortError'))).toBe(true)
    expect(isAbort(new DOMException('slow', 'TimeoutError'))).toBe(true)
    expect(isAbort(new ApiError('upstream_unavailable'))).toBe(false)
    expect(isAbort('AbortError')).toBe(false)
  })
})
