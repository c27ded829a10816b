import { describe, expect, it } from 'vitest'
import { formatModels, formatTokens } from './plan-wording.ts'

describe('formatting', () => {
  it('groups token counts in the reader’s locale', () => {
    expect(formatTokens(1_000_000, 'en-US')).toBe('1,000,000 AI tokens a month')
    expect(formatTokens(1_000_000, 'de-DE')).toBe('1.000.000 AI tokens a month')
  })
})

describe('model names', () => {
  it('lists models by the names people know them by', () => {
    expect(formatModels(['gpt-4.1', 'gpt-4o', 'gpt-4o-mini'], 'en-US')).toBe(
      'GPT-4.1, GPT-4o, and GPT-4o mini',
    )
    expect(formatModels(['gpt-5'], 'en-US')).toBe('gpt-5')
  })
})
