import { describe, expect, it } from 'vitest'
import { isTransientDatabaseError } from './transient.ts'

const withCode = (code: string) => Object.assign(new Error(code), { code })

describe('isTransientDatabaseError', () => {
  it('takes lost connections, deadlocks, serialisation failures and shutdowns as transient', () => {
    for (const code of [
      '08006',
      '08003',
      '40001',
      '40P01',
      '53300',
      '57P01',
      '55P03',
      'ECONNRESET',
      'CONNECTION_CLOSED',
    ])
      expect(isTransientDatabaseError(withCode(code)), code).toBe(true)
  })

  it('takes constraint violations, syntax errors and plain errors as permanent', () => {
    for (const error of [
      withCode('23505'),
      withCode('42601'),
      withCode('22P02'),
      new Error('x'),
      'text',
      null,
    ])
      expect(isTransientDatabaseError(error), String(error)).toBe(false)
  })
})
