import { countPromptTokens } from '@tessera/emulators/openai/tokenizer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  estimateCompletionTokens,
  estimatePromptTokens,
  promptTokenBound,
  reservationFor,
  utf8Length,
} from './estimate.ts'
import type { PromptMessage } from './estimate.ts'

const messageArbitrary: fc.Arbitrary<PromptMessage> = fc.record({
  role: fc.constantFrom('system', 'user', 'assistant'),
  content: fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.lorem({ maxCount: 40 })),
})

describe('token estimates', () => {
  it('measures UTF-8 exactly, surrogate pairs and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length)
      }),
      { numRuns: 500 },
    )
    expect(utf8Length('a\u00e9\u20ac\u{1f600}')).toBe(1 + 2 + 3 + 4)
    expect(utf8Length('\ud800')).toBe(3)
  })

  it('bounds the prompt from above: never fewer tokens than the stand-in counts', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 8 }), (messages) => {
        const counted = countPromptTokens(messages.map((message) => ({ text: message.content })))
        expect(promptTokenBound(messages)).toBeGreaterThanOrEqual(counted)
      }),
      { numRuns: 300 },
    )
  })

  it('reserves the prompt bound plus the longest answer', () => {
    const messages: PromptMessage[] = [{ role: 'user', content: 'hello' }]
    expect(reservationFor(messages, 100)).toBe(promptTokenBound(messages) + 100)
  })

  it('guesses below the bound for ordinary text, and at least one token per chunk received', () => {
    const messages: PromptMessage[] = [{ role: 'user', content: 'How do I brew green tea well?' }]
    expect(estimatePromptTokens(messages)).toBeLessThan(promptTokenBound(messages))
    expect(estimatePromptTokens(messages)).toBeGreaterThan(0)
    expect(estimateCompletionTokens('Hi', 5)).toBe(5)
    expect(estimateCompletionTokens('x'.repeat(400), 2)).toBe(100)
  })
})
