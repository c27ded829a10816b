import { afterEach, describe, expect, it, vi } from 'vitest'
import { addInterval, realNow } from './clock.ts'

const at = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 12, 30, 0) / 1000

describe('addInterval', () => {
  it('renews a monthly plan on the same day of the next month', () => {
    expect(addInterval(at(2026, 3, 14), 'month', 1, at(2026, 3, 14))).toBe(at(2026, 4, 14))
  })

  it('keeps an anchor on the 31st: the last day of short months, then the 31st again', () => {
    const anchor = at(2026, 1, 31)
    const feb = addInterval(anchor, 'month', 1, anchor)
    expect(feb).toBe(at(2026, 2, 28))
    expect(addInterval(feb, 'month', 1, anchor)).toBe(at(2026, 3, 31))
  })

  it('crosses a year end', () => {
    expect(addInterval(at(2026, 12, 5), 'month', 1, at(2026, 12, 5))).toBe(at(2027, 1, 5))
    expect(addInterval(at(2026, 12, 5), 'year', 1, at(2026, 12, 5))).toBe(at(2027, 12, 5))
  })

  it('adds whole days and weeks', () => {
    expect(addInterval(1000, 'day', 2, 1000)).toBe(1000 + 2 * 86_400)
    expect(addInterval(1000, 'week', 1, 1000)).toBe(1000 + 7 * 86_400)
  })
})

describe('realNow', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('gives everything done in one turn one second, and reads the clock again after it', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 12, 0, 0, 999) })
    const first = realNow()
    // The work of one request crosses into the next second without waiting for anything.
    vi.setSystemTime(Date.UTC(2026, 10, 28, 12, 0, 1, 3))
    expect(realNow()).toBe(first)
    await Promise.resolve()
    expect(realNow()).toBe(first + 1)
  })
})
