// A no-break space between groups ("12 400"): readable in any locale, and never split by a wrap.
const GROUP = '\u00a0'

/** A whole number with its thousands grouped by a space: 12400 → "12 400". */
export function formatCount(value: number): string {
  const digits = String(Math.max(0, Math.round(value)))
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, GROUP)
}

/** "1 December" for an ISO date, read in UTC as the usage month is. */
export function formatDay(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    timeZone: 'UTC',
  }).format(new Date(iso))
}

/** "14:05" today, "3 Nov" this year, "3 Nov 2025" before: for the conversation list. */
export function formatWhen(iso: string, now = new Date()): string {
  const date = new Date(iso)
  const sameDay = date.toDateString() === now.toDateString()
  if (sameDay) {
    return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' }).format(date)
  }
  const sameYear = date.getFullYear() === now.getFullYear()
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  }).format(date)
}
