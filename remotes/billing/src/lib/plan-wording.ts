import { formatCount, formatList } from '@tessera/plugin-react/format'

/** "1,000,000 AI tokens a month" in the reader's locale; per seat for a per-seat plan. */
export function formatTokens(tokens: number, locale?: string, perSeat = false): string {
  const text = `${formatCount(tokens, locale)} AI tokens a month`
  return perSeat ? `${text} per seat, pooled for the team` : text
}

/** What a plan's price is for: "forever", "a month", "per seat / month, from 2 seats". */
export function formatPeriod(plan: { monthlyPrice: number; perSeat: boolean; minSeats: number }) {
  if (plan.monthlyPrice === 0) return 'forever'
  if (!plan.perSeat) return 'a month'
  return plan.minSeats > 1 ? `per seat / month, from ${plan.minSeats} seats` : 'per seat / month'
}

const modelNames: Record<string, string> = {
  'gpt-4o-mini': 'GPT-4o mini',
  'gpt-4o': 'GPT-4o',
  'gpt-4.1': 'GPT-4.1',
}

/** A model's name as people read it ("GPT-4o mini"); unknown ids as they are. */
export function modelName(id: string): string {
  return modelNames[id] ?? id
}

/** "GPT-4o, GPT-4o mini" — a list in the reader's locale. */
export function formatModels(ids: readonly string[], locale?: string): string {
  return formatList(ids.map(modelName), locale)
}
