import { describe, expect, it } from 'vitest'
import { formatCount, formatDay, formatWhen } from './format.ts'

describe('formatCount', () => {
  it('groups thousands with a no-break space', () => {
    expect(formatCount(12_400)).toBe('12\u00a0400')
    expect(formatCount(1_000_000)).toBe('1\u00a0000\u00a0000')
    expect(formatCount(999)).toBe('999')
    expect(formatCount(0)).toBe('0')
  })
})

describe('formatDay', () => {
  it('names the day of a UTC date', () => {
    expect(formatDay('2026-12-01T00:00:00.000Z')).toBe('1 December')
  })
})

describe('formatWhen', () => {
  const now = new Date(2026, 10, 22, 15, 0)
  it('gives the time for today, the day for this year, and the year before that', () => {
    expect(formatWhen(new Date(2026, 10, 22, 9, 5).toISOString(), now)).toBe('09:05')
    expect(formatWhen(new Date(2026, 2, 3, 9, 5).toISOString(), now)).toBe('3 Mar')
    expect(formatWhen(new Date(2025, 2, 3, 9, 5).toISOString(), now)).toBe('3 Mar 2025')
  })
})
