/** A calendar month in UTC: the period a plan's monthly token limit applies to. */
export interface UsagePeriod {
  /** Midnight UTC of the month's first day. */
  start: Date
  /** Midnight UTC of the next month's first day (exclusive). */
  end: Date
}

/** The month (UTC) that contains `ms`. */
export function usagePeriodOf(ms: number): UsagePeriod {
  const at = new Date(ms)
  const year = at.getUTCFullYear()
  const month = at.getUTCMonth()
  return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) }
}
