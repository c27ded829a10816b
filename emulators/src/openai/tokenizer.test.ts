import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  TOKENS_PER_REPLY,
  countPromptTokens,
  countTokens,
  tokenize,
} from './tokenizer.ts'

describe('tokenize', () => {
  it('splits words and punctuation, each keeping the space before it', () => {
    expect(tokenize('Hello, world!')).toEqual(['Hello', ',', ' world', '!'])
  })

  it('splits long words into pieces of at most eight characters', () => {
    expect(tokenize('internationalization')).toEqual(['internat', 'ionaliza', 'tion'])
  })

  it('gives tokens that rebuild any text exactly', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const tokens = tokenize(text)
        expect(tokens.join('')).toBe(text)
        expect(tokens.every((token) => token.length > 0)).toBe(true)
      }),
    )
  })

  it('counts the tokens of two texts as the tokens of the texts apart when joined by a space', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{1,8}( [a-z]{1,8}){0,5}$/),
        fc.stringMatching(/^[a-z]{1,8}$/),
        (a, b) => {
          expect(countTokens(`${a} ${b}`)).toBe(countTokens(a) + countTokens(b))
        },
      ),
    )
  })
})

describe('countPromptTokens', () => {
  it('adds a fixed overhead per message, per name and for the reply', () => {
    const messages = [{ text: 'You are terse.' }, { text: 'Hi there', name: 'ada' }]
    expect(countPromptTokens(messages)).toBe(
      TOKENS_PER_REPLY +
        2 * TOKENS_PER_MESSAGE +
        countTokens('You are terse.') +
        countTokens('Hi there') +
        TOKENS_PER_NAME +
        1,
    )
  })
})
