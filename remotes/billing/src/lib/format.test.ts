import { describe, expect, it } from 'vitest'
import { formatDate, formatModels, formatPrice, formatTokens } from './format.ts'

describe('formatting', () => {
  it('prints whole prices without cents, others with', () => {
    expect(formatPrice(1500, 'usd', 'en-US')).toBe('$15')
    expect(formatPrice(4950, 'usd', 'en-US')).toBe('$49.50')
    expect(formatPrice(0, 'usd', 'en-US')).toBe('$0')
  })

  it('groups token counts in the reader’s locale', () => {
    expect(formatTokens(1_000_000, 'en-US')).toBe('1,000,000 AI tokens a month')
  })

  it('prints a calendar date, and the raw text when it is not a date', () => {
    expect(formatDate('2026-12-22T12:00:00.000Z', 'en-US')).toBe('December 22, 2026')
    expect(formatDate('soon', 'en-US')).toBe('soon')
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
