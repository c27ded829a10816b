/**
 * Numbers, money, dates and relative times in the reader's locale, the same way in every remote.
 * Each function takes the locale last, for tests and for a page that must pin one.
 *
 * Making an `Intl` formatter, and asking `Intl` which locale it supports, is slow next to using
 * one: a page that formats a list of dates made one for every date, and on a phone's CPU that was
 * a long task of its first render (decision 053). The locale is worked out once per set of the
 * browser's languages, and each formatter is made once per locale and options.
 */

const formatters = new Map<string, unknown>()

/** The formatter `key` names, made by `make` the first time it is asked for. */
function formatter<T>(key: string, make: () => T): T {
  let made = formatters.get(key) as T | undefined
  if (made === undefined) {
    made = make()
    formatters.set(key, made)
  }
  return made
}

let known: { languages: string; locale: string } | null = null

/**
 * The reader's locale: the browser's language (then its other preferred ones) when `Intl` knows
 * it, else the runtime's default, so a browser reporting an odd tag still gets readable text.
 */
export function readerLocale(): string {
  const preferred =
    typeof navigator === 'undefined' ? [] : [navigator.language, ...(navigator.languages ?? [])]
  // Worked out again only when the browser's languages change (a `languagechange`).
  const languages = preferred.join(',')
  if (known?.languages !== languages) known = { languages, locale: supportedLocale(preferred) }
  return known.locale
}

function supportedLocale(preferred: readonly string[]): string {
  for (const tag of preferred) {
    if (!tag) continue
    try {
      const [supported] = Intl.NumberFormat.supportedLocalesOf(tag)
      if (supported !== undefined) return supported
    } catch (error) {
      // A malformed tag is the browser's to fix; the reader still gets the next language.
      if (!(error instanceof RangeError)) throw error
    }
  }
  return new Intl.NumberFormat().resolvedOptions().locale
}

/** A number with the locale's grouping and decimals: "1,234.5" (en-US), "1.234,5" (de). */
export function formatNumber(value: number, locale = readerLocale()): string {
  return formatter(`number ${locale}`, () => new Intl.NumberFormat(locale)).format(value)
}

/** A count of things (tokens, characters): whole, never negative, grouped: "12,400". */
export function formatCount(value: number, locale = readerLocale()): string {
  return formatter(
    `count ${locale}`,
    () => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }),
  ).format(Math.max(0, Math.round(value)))
}

/**
 * An amount in the currency's smallest unit (cents), without cents when whole: "$15", "$49.50".
 */
export function formatMoney(amount: number, currency: string, locale = readerLocale()): string {
  const whole = amount % 100 === 0
  const code = currency.toUpperCase()
  return formatter(
    `money ${locale} ${code} ${whole}`,
    () =>
      new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: code,
        minimumFractionDigits: whole ? 0 : 2,
        maximumFractionDigits: 2,
      }),
  ).format(amount / 100)
}

function parseDate(iso: string): Date | null {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? null : date
}

/** A calendar date ("December 22, 2026"); the raw text if it is not a date. */
export function formatDate(iso: string, locale = readerLocale()): string {
  const date = parseDate(iso)
  return date === null
    ? iso
    : formatter(
        `date ${locale}`,
        () => new Intl.DateTimeFormat(locale, { dateStyle: 'long' }),
      ).format(date)
}

/** A day of the month read in UTC, as usage periods are: "December 1"; the raw text if no date. */
export function formatDay(iso: string, locale = readerLocale()): string {
  const date = parseDate(iso)
  return date === null
    ? iso
    : formatter(
        `day ${locale}`,
        () => new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', timeZone: 'UTC' }),
      ).format(date)
}

/** A date and time ("Nov 22, 2026, 3:05 PM"); the raw text if it is not a date. */
export function formatDateTime(iso: string, locale = readerLocale()): string {
  const date = parseDate(iso)
  return date === null
    ? iso
    : formatter(
        `date-time ${locale}`,
        () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
      ).format(date)
}

/** The time today, the day this year, the day and year before: for lists ("09:05", "Mar 3"). */
export function formatWhen(iso: string, now = new Date(), locale = readerLocale()): string {
  const date = parseDate(iso)
  if (date === null) return iso
  if (date.toDateString() === now.toDateString()) {
    return formatter(
      `time ${locale}`,
      () => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }),
    ).format(date)
  }
  const sameYear = date.getFullYear() === now.getFullYear()
  return formatter(
    `when ${locale} ${sameYear}`,
    () =>
      new Intl.DateTimeFormat(locale, {
        day: 'numeric',
        month: 'short',
        ...(sameYear ? {} : { year: 'numeric' }),
      }),
  ).format(date)
}

const relativeUnits: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
]

/** "5 minutes ago", "yesterday", "in 2 hours"; "now" under a minute; the raw text if no date. */
export function formatRelative(iso: string, now = Date.now(), locale = readerLocale()): string {
  const date = parseDate(iso)
  if (date === null) return iso
  const seconds = Math.round((date.getTime() - now) / 1000)
  const format = formatter(
    `relative ${locale}`,
    () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }),
  )
  for (const [unit, size] of relativeUnits) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit)
  }
  return format.format(0, 'second')
}

/** "a, b, and c" — a list joined the locale's way. */
export function formatList(items: readonly string[], locale = readerLocale()): string {
  return formatter(
    `list ${locale}`,
    () => new Intl.ListFormat(locale, { type: 'conjunction' }),
  ).format(items)
}
