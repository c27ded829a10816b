import { describe, expect, it } from 'vitest'
import { FaultBook, faultInputSchema } from './faults.ts'
import type { FaultInput, FaultTarget } from './faults.ts'

const chat = (text: string, model = 'gpt-4o-mini'): FaultTarget => ({
  endpoint: 'chat.completions',
  model,
  texts: [text],
})
const arm = (book: FaultBook, input: FaultInput) => book.arm(faultInputSchema.parse(input))

describe('FaultBook', () => {
  it('applies a fault to the next request only, by default', () => {
    const book = new FaultBook()
    arm(book, { type: 'server_error' })
    expect(book.take(chat('hi'))?.type).toBe('server_error')
    expect(book.take(chat('hi'))).toBeUndefined()
  })

  it('applies a fault to as many requests as its count', () => {
    const book = new FaultBook()
    arm(book, { type: 'rate_limit', count: 2 })
    expect([
      book.take(chat('a'))?.remaining,
      book.take(chat('b'))?.remaining,
      book.take(chat('c')),
    ]).toEqual([1, 0, undefined])
  })

  it('leaves requests that do not match the model or the message alone', () => {
    const book = new FaultBook()
    arm(book, { type: 'cut', match: 'test-42', model: 'gpt-4o' })
    expect(book.take(chat('test-42 please', 'gpt-4o-mini'))).toBeUndefined()
    expect(book.take(chat('something else', 'gpt-4o'))).toBeUndefined()
    expect(book.take(chat('test-42 please', 'gpt-4o'))?.type).toBe('cut')
  })

  it('keeps chat faults away from moderation requests', () => {
    const book = new FaultBook()
    arm(book, { type: 'server_error' })
    expect(
      book.take({ endpoint: 'moderations', model: 'omni-moderation-latest', texts: ['x'] }),
    ).toBeUndefined()
    expect(book.list()).toHaveLength(1)
  })

  it('uses faults in the order they were armed', () => {
    const book = new FaultBook()
    arm(book, { type: 'stall', ms: 10 })
    arm(book, { type: 'server_error' })
    expect([book.take(chat('x'))?.type, book.take(chat('x'))?.type]).toEqual([
      'stall',
      'server_error',
    ])
  })

  it('removes one fault by id and all faults on clear', () => {
    const book = new FaultBook()
    const first = arm(book, { type: 'stall' })
    arm(book, { type: 'server_error' })
    expect(book.remove(first.id)).toBe(true)
    expect(book.remove(first.id)).toBe(false)
    book.clear()
    expect(book.list()).toEqual([])
  })

  it('refuses stream faults aimed at moderations', () => {
    expect(faultInputSchema.safeParse({ type: 'cut', endpoint: 'moderations' }).success).toBe(false)
    expect(faultInputSchema.safeParse({ type: 'slow' }).success).toBe(false)
  })
})
