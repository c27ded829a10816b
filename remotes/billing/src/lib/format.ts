/** "$15", "$49.50", "$0". Amounts are in the currency's smallest unit (cents). */
export function formatPrice(amount: number, currency: string, locale?: string): string {
  const whole = amount % 100 === 0
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(amount / 100)
}

/** "1,000,000 AI tokens a month" in the reader's locale. */
export function formatTokens(tokens: number, locale?: string): string {
  return `${new Intl.NumberFormat(locale).format(tokens)} AI tokens a month`
}

/** A calendar date in the reader's locale ("December 22, 2026"); the raw text if unparseable. */
export function formatDate(iso: string, locale?: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime())
    ? iso
    : new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(date)
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
  return new Intl.ListFormat(locale, { type: 'conjunction' }).format(ids.map(modelName))
}
