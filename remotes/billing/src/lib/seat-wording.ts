import { formatMoney } from '@tessera/plugin-react/format'

/** The seats a team of `members` pays for: one each, at least the plan's minimum. */
export function seatsFor(members: number, minSeats: number): number {
  return Math.max(members, minSeats)
}

/**
 * "3 members: 3 seats × $15 = $45 a month"; a team smaller than the minimum says so
 * ("1 member: 2 seats (the minimum) × $15 = $30 a month").
 */
export function formatSeatPrice(
  members: number,
  plan: { monthlyPrice: number; minSeats: number; currency: string },
  locale?: string,
): string {
  const seats = seatsFor(members, plan.minSeats)
  const who = members === 1 ? '1 member' : `${members} members`
  const minimum = seats > members ? ' (the minimum)' : ''
  const each = formatMoney(plan.monthlyPrice, plan.currency, locale)
  const total = formatMoney(plan.monthlyPrice * seats, plan.currency, locale)
  return `${who}: ${seats} seats${minimum} × ${each} = ${total} a month`
}
