import { describe, expect, it } from 'vitest'
import { GoTrueError, errorBody, negotiatedApiVersion } from './errors.ts'

describe('GoTrue API versions', () => {
  it('negotiates 2024-01-01 for that date or later and the legacy shape otherwise', () => {
    expect(negotiatedApiVersion('2024-01-01')).toBe('2024-01-01')
    expect(negotiatedApiVersion('2025-06-30')).toBe('2024-01-01')
    expect(negotiatedApiVersion('2023-12-31')).toBeNull()
    expect(negotiatedApiVersion('garbage')).toBeNull()
    expect(negotiatedApiVersion(undefined)).toBeNull()
  })

  it('renders both body shapes', () => {
    const error = new GoTrueError(429, 'over_email_send_rate_limit', 'Slow down')
    expect(errorBody(error, '2024-01-01')).toEqual({
      code: 'over_email_send_rate_limit',
      message: 'Slow down',
    })
    expect(errorBody(error, null)).toEqual({
      code: 429,
      error_code: 'over_email_send_rate_limit',
      msg: 'Slow down',
    })
  })
})
