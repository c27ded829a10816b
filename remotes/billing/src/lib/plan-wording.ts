import { formatCount, formatList } from '@tessera/plugin-react/format'

/** "1,000,000 AI tokens a month" in the reader's locale. */
export function formatTokens(tokens: number, locale?: string): string {
  return `${formatCount(tokens, locale)} AI tokens a month`
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
