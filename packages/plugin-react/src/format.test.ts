import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  formatCount,
  formatDate,
  formatDateTime,
  formatDay,
  formatList,
  formatMoney,
  formatNumber,
  formatRelative,
  formatWhen,
  dateTimeFormat,
  numberFormat,
  readerLocale,
} from './format.ts'

afterEach(() => {
  vi.unstubAllGlobals()
})

// Exact strings are checked in pinned locales; the reader's own locale is checked against Intl,
// so these tests pass on a machine set to any language.
describe('readerLocale', () => {
  it('follows the browser’s language', () => {
    vi.stubGlobal('navigator', { language: 'de-DE', languages: ['de-DE', 'en'] })
    expect(readerLocale()).toBe('de-DE')
    expect(formatCount(12_400)).toBe(formatCount(12_400, 'de-DE'))
  })

  it('skips a malformed language for the next one the browser prefers', () => {
    vi.stubGlobal('navigator', { language: 'not a tag!', languages: ['not a tag!', 'fr-FR'] })
    expect(readerLocale()).toBe('fr-FR')
  })

  it('falls back to the runtime’s locale without a browser language', () => {
    vi.stubGlobal('navigator', undefined)
    expect(readerLocale()).toBe(new Intl.NumberFormat().resolvedOptions().locale)
  })
})

describe('numbers and money', () => {
  it('groups numbers the locale’s way', () => {
    expect(formatNumber(1_234.5, 'en-US')).toBe('1,234.5')
    expect(formatNumber(1_234.5, 'de-DE')).toBe('1.234,5')
    expect(formatNumber(1_000_000)).toBe(new Intl.NumberFormat(readerLocale()).format(1_000_000))
  })

  it('prints counts whole, never negative, with the locale’s grouping', () => {
    expect(formatCount(12_400, 'en-US')).toBe('12,400')
    expect(formatCount(1_000_000, 'en-US')).toBe('1,000,000')
    expect(formatCount(12_400, 'en-GB')).toBe('12,400')
    expect(formatCount(999.6, 'en-US')).toBe('1,000')
    expect(formatCount(-3, 'en-US')).toBe('0')
    expect(formatCount(0, 'en-US')).toBe('0')
  })

  it('prints whole prices without cents, others with', () => {
    expect(formatMoney(1500, 'usd', 'en-US')).toBe('$15')
    expect(formatMoney(4950, 'usd', 'en-US')).toBe('$49.50')
    expect(formatMoney(0, 'usd', 'en-US')).toBe('$0')
    expect(formatMoney(4950, 'eur', 'de-DE').replace(/\s/g, ' ')).toBe('49,50 €')
  })
})

describe('dates', () => {
  it('prints a calendar date, and the raw text when it is not a date', () => {
    expect(formatDate('2026-12-22T12:00:00.000Z', 'en-US')).toBe('December 22, 2026')
    expect(formatDate('2026-12-22T12:00:00.000Z', 'en-GB')).toBe('22 December 2026')
    expect(formatDate('soon', 'en-US')).toBe('soon')
  })

  it('names the day of a UTC date', () => {
    expect(formatDay('2026-12-01T00:00:00.000Z', 'en-GB')).toBe('1 December')
    expect(formatDay('2026-12-01T00:00:00.000Z', 'en-US')).toBe('December 1')
    expect(formatDay('soon', 'en-US')).toBe('soon')
  })

  it('prints a date with its time, and the raw text when it is not a date', () => {
    const iso = new Date(2026, 10, 22, 15, 5).toISOString()
    // ICU versions differ on the space before PM (a narrow no-break space in newer ones).
    expect(formatDateTime(iso, 'en-US').replace(/\s/g, ' ')).toBe('Nov 22, 2026, 3:05 PM')
    expect(formatDateTime('soon', 'en-US')).toBe('soon')
  })

  it('gives the time for today, the day for this year, and the year before that', () => {
    const now = new Date(2026, 10, 22, 15, 0)
    expect(formatWhen(new Date(2026, 10, 22, 9, 5).toISOString(), now, 'en-GB')).toBe('09:05')
    expect(formatWhen(new Date(2026, 2, 3, 9, 5).toISOString(), now, 'en-GB')).toBe('3 Mar')
    expect(formatWhen(new Date(2025, 2, 3, 9, 5).toISOString(), now, 'en-GB')).toBe('3 Mar 2025')
    expect(formatWhen(new Date(2026, 2, 3, 9, 5).toISOString(), now, 'en-US')).toBe('Mar 3')
  })
})

describe('relative times', () => {
  const now = Date.parse('2026-11-22T15:00:00.000Z')
  it('says how long ago in the largest whole unit', () => {
    expect(formatRelative('2026-11-22T14:55:00.000Z', now, 'en-US')).toBe('5 minutes ago')
    expect(formatRelative('2026-11-21T15:00:00.000Z', now, 'en-US')).toBe('yesterday')
    expect(formatRelative('2026-11-22T17:00:00.000Z', now, 'en-US')).toBe('in 2 hours')
    expect(formatRelative('2026-11-22T14:55:00.000Z', now, 'de-DE')).toBe('vor 5 Minuten')
  })

  it('says now under a minute, and gives back what is not a date', () => {
    expect(formatRelative('2026-11-22T14:59:30.000Z', now, 'en-US')).toBe('now')
    expect(formatRelative('whenever', now, 'en-US')).toBe('whenever')
  })
})

describe('lists', () => {
  it('joins a list the locale’s way', () => {
    expect(formatList(['GPT-4.1', 'GPT-4o', 'GPT-4o mini'], 'en-US')).toBe(
      'GPT-4.1, GPT-4o, and GPT-4o mini',
    )
    expect(formatList(['a', 'b'], 'de-DE')).toBe('a und b')
    expect(formatList(['gpt-5'], 'en-US')).toBe('gpt-5')
  })
})

describe('formatters', () => {
  it('are made once per locale and options, however many values they format', () => {
    const Original = Intl.DateTimeFormat
    const made = vi.spyOn(Intl, 'DateTimeFormat').mockImplementation(function (
      ...args: ConstructorParameters<typeof Original>
    ) {
      return new Original(...args)
    } as unknown as typeof Original)
    const dates = Array.from({ length: 40 }, (_, day) =>
      formatDate(`2026-03-${(day % 28) + 1}`, 'pt-BR'),
    )
    expect(made).toHaveBeenCalledTimes(1)
    expect(new Set(dates).size).toBe(28)
    formatDate('2026-03-01', 'sv-SE')
    expect(made).toHaveBeenCalledTimes(2)
    made.mockRestore()
  })

  it('are given to a remote for its own wording, one per locale and options', () => {
    const percent = numberFormat({ style: 'percent', maximumFractionDigits: 1 }, 'en-US')
    expect(percent.format(0.125)).toBe('12.5%')
    expect(numberFormat({ style: 'percent', maximumFractionDigits: 1 }, 'en-US')).toBe(percent)
    expect(numberFormat({ style: 'percent' }, 'en-US')).not.toBe(percent)
    expect(
      numberFormat({ style: 'percent', maximumFractionDigits: 1 }, 'de-DE').format(0.125),
    ).toBe('12,5\u00a0%')
    const time = dateTimeFormat({ timeStyle: 'short', timeZone: 'UTC' }, 'en-GB')
    expect(time.format(Date.UTC(2026, 10, 28, 9, 5))).toBe('09:05')
    expect(dateTimeFormat({ timeStyle: 'short', timeZone: 'UTC' }, 'en-GB')).toBe(time)
  })

  it('work out the reader’s locale once, again when the browser’s languages change', () => {
    const asked = vi.spyOn(Intl.NumberFormat, 'supportedLocalesOf')
    vi.stubGlobal('navigator', { language: 'nl-NL', languages: ['nl-NL'] })
    for (let i = 0; i < 20; i += 1) expect(readerLocale()).toBe('nl-NL')
    expect(asked).toHaveBeenCalledTimes(1)
    vi.stubGlobal('navigator', { language: 'it-IT', languages: ['it-IT'] })
    expect(readerLocale()).toBe('it-IT')
    expect(asked).toHaveBeenCalledTimes(2)
    asked.mockRestore()
  })
})
