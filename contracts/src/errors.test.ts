import { describe, expect, it } from 'vitest'
import { ApiError, errorBodySchema, errorCatalogue, isCatalogued } from './errors.ts'

describe('the error catalogue', () => {
  it('gives every code a 4xx or 5xx status and a sentence ending in a full stop', () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400)
      expect(entry.status, code).toBeLessThan(600)
      expect(entry.message, code).toMatch(/^[A-Z].*\.$/)
    }
  })

  it('builds an ApiError with the catalogue status and sentence', () => {
    const error = new ApiError('rate_limited', { requestId: 'req-1' })
    expect(error.status).toBe(429)
    expect(error.message).toBe(errorCatalogue.rate_limited.message)
    expect(error.requestId).toBe('req-1')
  })

  it('exposes the field issues of a validation error and none for other codes', () => {
    const issues = [{ path: 'email', message: 'Enter an email address.' }]
    expect(new ApiError('validation_failed', { details: { issues } }).issues).toEqual(issues)
    expect(new ApiError('validation_failed', { details: { issues: 'nope' } }).issues).toEqual([])
    expect(new ApiError('not_found').issues).toEqual([])
  })

  it('parses error bodies with known codes only', () => {
    const body = { error: { code: 'not_found', message: 'x', requestId: 'r' } }
    expect(errorBodySchema.parse(body)).toEqual(body)
    expect(
      errorBodySchema.safeParse({ error: { code: 'teapot', message: 'x', requestId: 'r' } })
        .success,
    ).toBe(false)
  })

  it('knows which status belongs to which code', () => {
    expect(isCatalogued('conflict', 409)).toBe(true)
    expect(isCatalogued('conflict', 500)).toBe(false)
    expect(isCatalogued('teapot', 418)).toBe(false)
  })
})
