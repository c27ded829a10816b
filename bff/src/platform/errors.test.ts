import { ApiError, errorCatalogue } from '@tessera/contracts'
import { HTTPException } from 'hono/http-exception'
import { describe, expect, it } from 'vitest'
import { z } from 'zod/mini'
import {
  ApiErrorWithHeaders,
  errorHeaders,
  toApiError,
  toErrorBody,
  toFieldIssues,
} from './errors.ts'

describe('toApiError', () => {
  it('keeps an ApiError as it was thrown', () => {
    const error = new ApiError('conflict')
    expect(toApiError(error)).toEqual({ apiError: error, expected: true })
  })

  it('turns a zod failure into validation_failed with field issues', () => {
    const result = z.object({ a: z.object({ b: z.string() }) }).safeParse({ a: { b: 1 } })
    if (result.success) throw new Error('expected the parse to fail')
    const { apiError } = toApiError(result.error)
    expect(apiError.code).toBe('validation_failed')
    expect(apiError.issues).toEqual([{ path: 'a.b', message: expect.any(String) as string }])
  })

  it('maps Hono HTTP exceptions to the catalogue code with the same status', () => {
    expect(toApiError(new HTTPException(413)).apiError.code).toBe('payload_too_large')
    expect(toApiError(new HTTPException(401)).apiError.code).toBe('unauthenticated')
    expect(toApiError(new HTTPException(400)).apiError.code).toBe('validation_failed')
    expect(toApiError(new HTTPException(418))).toMatchObject({
      apiError: { code: 'internal' },
      expected: false,
    })
  })

  it('tells people to try again when a service could not be reached, logging it all the same', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    })
    const shutdown = Object.assign(new Error('terminating connection'), { code: '57P01' })
    const wrapped = new Error('query failed', {
      cause: Object.assign(new Error(), { code: '08006' }),
    })
    for (const error of [refused, shutdown, wrapped]) {
      const { apiError, expected } = toApiError(error)
      expect(apiError.code).toBe('upstream_unavailable')
      expect(expected).toBe(false)
    }
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' })
    expect(toApiError(unique).apiError.code).toBe('internal')
  })

  it('treats anything else as an unexpected internal error', () => {
    expect(toApiError(new Error('db exploded'))).toMatchObject({
      apiError: { code: 'internal' },
      expected: false,
    })
    expect(toApiError('a string')).toMatchObject({
      apiError: { code: 'internal' },
      expected: false,
    })
  })
})

describe('toErrorBody', () => {
  it('shows people the catalogue sentence for internal errors, never the thrown message or details', () => {
    const body = toErrorBody(
      new ApiError('internal', { message: 'SELECT failed at 10.0.0.3', details: { sql: 'x' } }),
      'r1',
    )
    expect(body).toEqual({
      error: { code: 'internal', message: errorCatalogue.internal.message, requestId: 'r1' },
    })
  })

  it('carries details for other codes', () => {
    const body = toErrorBody(
      new ApiError('payload_too_large', { details: { limitBytes: 10 } }),
      'r2',
    )
    expect(body.error.details).toEqual({ limitBytes: 10 })
  })
})

describe('errorHeaders', () => {
  it('adds Retry-After and Allow from the details', () => {
    expect(
      errorHeaders(new ApiError('rate_limited', { details: { retryAfterSeconds: 7 } })),
    ).toEqual({ 'Retry-After': '7' })
    expect(
      errorHeaders(new ApiError('method_not_allowed', { details: { allow: ['GET', 'HEAD'] } })),
    ).toEqual({ Allow: 'GET, HEAD' })
  })

  it('says when to come back on every 429, and carries the headers an error brings', () => {
    expect(errorHeaders(new ApiError('quota_exceeded'))).toEqual({ 'Retry-After': '60' })
    expect(
      errorHeaders(
        new ApiErrorWithHeaders('rate_limited', {
          details: { retryAfterSeconds: 12 },
          headers: { RateLimit: '"chat";r=0;t=12' },
        }),
      ),
    ).toEqual({ 'Retry-After': '12', RateLimit: '"chat";r=0;t=12' })
  })
})

describe('toFieldIssues', () => {
  it('uses an empty path for a problem with the whole body', () => {
    const result = z.strictObject({}).safeParse({ extra: 1 })
    if (result.success) throw new Error('expected the parse to fail')
    expect(toFieldIssues(result.error)[0]?.path).toBe('')
  })
})
