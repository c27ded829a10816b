/**
 * Numbers, money, dates and relative times in the reader's locale, the same way in every remote.
 * Each function takes the locale last, for tests and for a page that must pin one.
 *
 * Making an `Intl` formatter, and asking `Intl` which locale it supports, is slow next to using
 * one: a page that formats a list of dates made one for every date, and on a phone's CPU that was
 * a long task of its first render (decision 053). The locale is worked out once per set of the
 * browser's languages, and each formatter is made once per locale and options; a remote's own
 * wording gets its formatters here too (`numberFormat`, `dateTimeFormat`). The first `Intl` use of
 * a page loads the browser's locale data: the host's page does that before any remote runs
 * (decision 054).
 */

const formatters = new Map<string, unknown>()

/** The formatter of `kind` for a locale and options, made by `make` the first time. */
function cached<T>(kind: string, locale: string, options: object, make: () => T): T {
  const key = `${kind} ${locale} ${JSON.stringify(options)}`
  let made = formatters.get(key) as T | undefined
  if (made === undefined) {
    made = make()
    formatters.set(key, made)
  }
  return made
}

/**
 * The reader's `Intl.NumberFormat` with these options, made once per locale and options: for a
 * remote's own wording (a percentage, a unit) beside the functions below.
 */
export function numberFormat(
  options: Intl.NumberFormatOptions = {},
  locale = readerLocale(),
): Intl.NumberFormat {
  return cached('number', locale, options, () => new Intl.NumberFormat(locale, options))
}

/** The reader's `Intl.DateTimeFormat` with these options, made once per locale and options. */
export function dateTimeFormat(
  options: Intl.DateTimeFormatOptions = {},
  locale = readerLocale(),
): Intl.DateTimeFormat {
  return cached('date', locale, options, () => new Intl.DateTimeFormat(locale, options))
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
  return numberFormat({}, locale).format(value)
}

/** A count of things (tokens, characters): whole, never negative, grouped: "12,400". */
export function formatCount(value: number, locale = readerLocale()): string {
  return numberFormat({ maximumFractionDigits: 0 }, locale).format(Math.max(0, Math.round(value)))
}

/**
 * An amount in the currency's smallest unit (cents), without cents when whole: "$15", "$49.50".
 */
export function formatMoney(amount: number, currency: string, locale = readerLocale()): string {
  const whole = amount % 100 === 0
  const code = currency.toUpperCase()
  return numberFormat(
    {
      style: 'currency',
      currency: code,
      minimumFractionDigits: whole ? 0 : 2,
      maximumFractionDigits: 2,
    },
    locale,
  ).format(amount / 100)
}

function parseDate(iso: string): Date | null {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? null : date
}

/** A calendar date ("December 22, 2026"); the raw text if it is not a date. */
export function formatDate(iso: string, locale = readerLocale()): string {
  const date = parseDate(iso)
  return date === null ? iso : dateTimeFormat({ dateStyle: 'long' }, locale).format(date)
}

/** A day of the month read in UTC, as usage periods are: "December 1"; the raw text if no date. */
export function formatDay(iso: string, locale = readerLocale()): string {
  const date = parseDate(iso)
  return date === null
    ? iso
    : dateTimeFormat({ day: 'numeric', month: 'long', timeZone: 'UTC' }, locale).format(date)
}

/** A date and time ("Nov 22, 2026, 3:05 PM"); the raw text if it is not a date. */
export function formatDateTime(iso: string, locale = readerLocale()): string {
  const date = parseDate(iso)
  return date === null
    ? iso
    : dateTimeFormat({ dateStyle: 'medium', timeStyle: 'short' }, locale).format(date)
}

/** The time today, the day this year, the day and year before: for lists ("09:05", "Mar 3"). */
export function formatWhen(iso: string, now = new Date(), locale = readerLocale()): string {
  const date = parseDate(iso)
  if (date === null) return iso
  if (date.toDateString() === now.toDateString()) {
    return dateTimeFormat({ hour: '2-digit', minute: '2-digit' }, locale).format(date)
  }
  const sameYear = date.getFullYear() === now.getFullYear()
  return dateTimeFormat(
    { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }) },
    locale,
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
  const options = { numeric: 'auto' } as const
  const format = cached(
    'relative',
    locale,
    options,
    () => new Intl.RelativeTimeFormat(locale, options),
  )
  for (const [unit, size] of relativeUnits) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit)
  }
  return format.format(0, 'second')
}

/** "a, b, and c" — a list joined the locale's way. */
export function formatList(items: readonly string[], locale = readerLocale()): string {
  const options = { type: 'conjunction' } as const
  return cached('list', locale, options, () => new Intl.ListFormat(locale, options)).format(items)
}
