import { describe, expect, it } from 'vitest'
import { describeChannel, formatBytes, formatPercent, formatWindow } from './wording.ts'

describe('wording', () => {
  it('writes sizes in bytes, kilobytes and megabytes', () => {
    expect(formatBytes(812, 'en-US')).toBe('812 B')
    expect(formatBytes(14_230, 'en-US')).toBe('14.2 KB')
    expect(formatBytes(1_300_000, 'en-US')).toBe('1.3 MB')
  })

  it('writes shares as percentages with at most one decimal', () => {
    expect(formatPercent(0.2, 'en-US')).toBe('20%')
    expect(formatPercent(0.125, 'en-US')).toBe('12.5%')
  })

  it('writes the canary window in minutes when whole', () => {
    expect(formatWindow(600, 'en-US')).toBe('10 minutes')
    expect(formatWindow(90, 'en-US')).toBe('90 seconds')
  })

  it('says what a channel serves', () => {
    expect(describeChannel({ version: null, percentage: null })).toBe('nothing')
    expect(describeChannel({ version: '1.0.0', percentage: null })).toBe('1.0.0')
    expect(describeChannel({ version: '1.3.0', percentage: 20 })).toBe('1.3.0 at 20 %')
  })
})
