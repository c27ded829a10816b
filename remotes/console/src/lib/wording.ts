import { formatNumber, numberFormat, readerLocale } from '@tessera/plugin-react/format'

/** A share as a whole or one-decimal percentage: "20 %", "12.5 %"; the locale's digits. */
export function formatPercent(share: number, locale = readerLocale()): string {
  return numberFormat({ style: 'percent', maximumFractionDigits: 1 }, locale).format(share)
}

/** A build's size in the reader's units: "812 B", "14.2 KB", "1.3 MB" (1 KB = 1,000 bytes). */
export function formatBytes(bytes: number, locale = readerLocale()): string {
  if (bytes < 1000) return `${formatNumber(bytes, locale)} B`
  const units = ['KB', 'MB', 'GB'] as const
  let value = bytes / 1000
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit += 1
  }
  const text = numberFormat({ maximumFractionDigits: 1 }, locale).format(value)
  return `${text} ${units[unit]}`
}

/** A span of seconds in minutes when whole ("10 minutes"), else seconds. */
export function formatWindow(seconds: number, locale = readerLocale()): string {
  const unit = seconds % 60 === 0 ? 'minute' : 'second'
  const value = unit === 'minute' ? seconds / 60 : seconds
  return numberFormat({ style: 'unit', unit, unitDisplay: 'long' }, locale).format(value)
}

/** What a channel serves, in words: "1.2.0", "1.3.0 at 20 %", or "nothing". */
export function describeChannel(channel: {
  version: string | null
  percentage: number | null
}): string {
  if (channel.version === null) return 'nothing'
  return channel.percentage === null
    ? channel.version
    : `${channel.version} at ${channel.percentage} %`
}
