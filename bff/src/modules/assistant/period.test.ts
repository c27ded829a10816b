import { describe, expect, it } from 'vitest'
import { usagePeriodOf } from './period.ts'

describe('usagePeriodOf', () => {
  it('gives the UTC calendar month around a moment', () => {
    const period = usagePeriodOf(Date.parse('2026-11-22T10:30:00Z'))
    expect(period.start.toISOString()).toBe('2026-11-01T00:00:00.000Z')
    expect(period.end.toISOString()).toBe('2026-12-01T00:00:00.000Z')
  })

  it('rolls over into the next year in December', () => {
    const period = usagePeriodOf(Date.parse('2026-12-31T23:59:59.999Z'))
    expect(period.start.toISOString()).toBe('2026-12-01T00:00:00.000Z')
    expect(period.end.toISOString()).toBe('2027-01-01T00:00:00.000Z')
  })

  it('starts a new month at midnight UTC, whatever the local time zone says', () => {
    expect(usagePeriodOf(Date.parse('2027-03-01T00:00:00Z')).start.toISOString()).toBe(
      '2027-03-01T00:00:00.000Z',
    )
    expect(usagePeriodOf(Date.parse('2027-02-28T23:59:59Z')).start.toISOString()).toBe(
      '2027-02-01T00:00:00.000Z',
    )
  })
})
