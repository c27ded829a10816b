import type { Plan } from '@tessera/contracts/plan-values'

// The same wording as the billing remote's plans page (remotes/billing/src/lib/plan-wording.ts),
// so a visitor reads the same plan twice the same way. The host has its own copy: it imports no
// remote, and the Intl calls are all there is to it.

const modelNames: Record<string, string> = {
  'gpt-4o-mini': 'GPT-4o mini',
  'gpt-4o': 'GPT-4o',
  'gpt-4.1': 'GPT-4.1',
}

/** "$0", "$15": a plan's monthly price, without cents when whole, in the reader's locale. */
export function formatPlanPrice(plan: Pick<Plan, 'monthlyPrice' | 'currency'>, locale?: string) {
  const whole = plan.monthlyPrice % 100 === 0
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: plan.currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(plan.monthlyPrice / 100)
}

/** What the price is for: "forever", "a month", "per seat / month, from 2 seats". */
export function formatPlanPeriod(plan: Pick<Plan, 'monthlyPrice' | 'perSeat' | 'minSeats'>) {
  if (plan.monthlyPrice === 0) return 'forever'
  if (!plan.perSeat) return 'a month'
  return plan.minSeats > 1 ? `per seat / month, from ${plan.minSeats} seats` : 'per seat / month'
}

/** "50,000 AI tokens a month"; per seat for a per-seat plan (one pool for the team). */
export function formatPlanTokens(plan: Pick<Plan, 'limits' | 'perSeat'>, locale?: string): string {
  const count = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 })
  const tokens = `${count.format(plan.limits.monthlyTokens)} AI tokens a month`
  return plan.perSeat ? `${tokens} per seat, pooled for the team` : tokens
}

/** "Model: GPT-4o mini", "Models: GPT-4o and GPT-4o mini". */
export function formatPlanModels(plan: Pick<Plan, 'limits'>, locale?: string): string {
  const { models } = plan.limits
  const names = new Intl.ListFormat(locale, { type: 'conjunction' }).format(
    models.map((id) => modelNames[id] ?? id),
  )
  return `${models.length === 1 ? 'Model' : 'Models'}: ${names}`
}
