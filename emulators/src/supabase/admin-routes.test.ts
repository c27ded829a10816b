import { describe, expect, it } from 'vitest'
import { parseBanDuration } from './admin-routes.ts'

describe('parseBanDuration', () => {
  it('reads Go durations and none', () => {
    expect(parseBanDuration('24h')).toBe(86_400_000)
    expect(parseBanDuration('1h30m')).toBe(5_400_000)
    expect(parseBanDuration('90s')).toBe(90_000)
    expect(parseBanDuration('none')).toBeNull()
  })

  it('refuses anything else with validation_failed', () => {
    for (const value of ['', 'forever', '3d', '-1h'])
      expect(() => parseBanDuration(value)).toThrow('invalid format for ban duration')
  })
})
