// The emulated clock: real time plus an offset that only grows, so tests can jump to the end of a
// billing period while timestamps stay plausible.
import type { Interval } from './objects.ts'

export const DAY = 86_400

let turnSecond: number | undefined

/**
 * Real time in whole seconds, read once per turn of the event loop: what one request does without
 * waiting carries one timestamp, as at Stripe, where a checkout's subscription and its
 * `checkout.session.completed` share their `created` however long the work between them takes.
 */
export function realNow(): number {
  if (turnSecond === undefined) {
    turnSecond = Math.floor(Date.now() / 1000)
    queueMicrotask(() => {
      turnSecond = undefined
    })
  }
  return turnSecond
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
}

/**
 * The end of a billing period that starts at `start`, keeping the anchor's day of month and time
 * of day (a subscription started on the 31st renews on the last day of shorter months).
 */
export function addInterval(
  start: number,
  interval: Interval,
  count: number,
  anchor: number,
): number {
  if (interval === 'day') return start + count * DAY
  if (interval === 'week') return start + count * 7 * DAY
  const from = new Date(start * 1000)
  const a = new Date(anchor * 1000)
  const months = interval === 'year' ? 12 * count : count
  const year = from.getUTCFullYear()
  const monthIndex = from.getUTCMonth() + months
  const targetYear = year + Math.floor(monthIndex / 12)
  const targetMonth = ((monthIndex % 12) + 12) % 12
  const day = Math.min(a.getUTCDate(), daysInMonth(targetYear, targetMonth))
  return (
    Date.UTC(targetYear, targetMonth, day, a.getUTCHours(), a.getUTCMinutes(), a.getUTCSeconds()) /
    1000
  )
}
