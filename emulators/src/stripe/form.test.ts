import { describe, expect, it } from 'vitest'
import { FormError, formatParam, parseForm, stringifyForm } from './form.ts'

describe('parseForm', () => {
  it('reads nested brackets into objects and indexed keys into arrays', () => {
    expect(
      parseForm(
        'line_items[0][price]=price_1&line_items[0][quantity]=2&line_items[1][price]=price_2&metadata[user_id]=u1',
      ),
    ).toEqual({
      line_items: [{ price: 'price_1', quantity: '2' }, { price: 'price_2' }],
      metadata: { user_id: 'u1' },
    })
  })

  it('appends values given with empty brackets, as lookup_keys[] is sent', () => {
    expect(parseForm('lookup_keys[]=a&lookup_keys[]=b&expand[0]=data.product')).toEqual({
      lookup_keys: ['a', 'b'],
      expand: ['data.product'],
    })
  })

  it('accepts percent-encoded brackets and plus signs for spaces', () => {
    expect(parseForm('metadata%5Bnote%5D=hello+world&email=a%2Bb%40c.d')).toEqual({
      metadata: { note: 'hello world' },
      email: 'a+b@c.d',
    })
  })

  it('keeps an empty value, which Stripe reads as unset', () => {
    expect(parseForm('description=&metadata=')).toEqual({ description: '', metadata: '' })
  })

  it('sorts array entries by their index, not by arrival', () => {
    expect(parseForm('items[1][price]=b&items[0][price]=a')).toEqual({
      items: [{ price: 'a' }, { price: 'b' }],
    })
  })

  it('refuses a key given both a value and nested keys', () => {
    expect(() => parseForm('metadata=x&metadata[a]=b')).toThrow(FormError)
  })

  it('refuses keys that would reach the object prototype', () => {
    expect(() => parseForm('__proto__[polluted]=yes')).toThrow(FormError)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('reads back what stringifyForm writes', () => {
    const data = { a: 'x', b: { c: ['1', '2'], d: { e: 'f g' } } }
    expect(parseForm(stringifyForm(data))).toEqual(data)
  })
})

describe('formatParam', () => {
  it('names a nested parameter the way Stripe errors do', () => {
    expect(formatParam(['line_items', 0, 'price'])).toBe('line_items[0][price]')
    expect(formatParam(['customer'])).toBe('customer')
  })
})
