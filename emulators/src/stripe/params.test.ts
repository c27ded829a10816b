import { describe, expect, it } from 'vitest'
import { z } from 'zod/mini'
import { StripeApiError } from './errors.ts'
import { p, parseParams } from './params.ts'

const schema = z.strictObject({
  customer: p.nonEmpty(),
  quantity: z.optional(p.int(1, 10)),
  flag: z.optional(p.bool()),
  nested: z.optional(z.strictObject({ inner: z.optional(p.nonEmpty()) })),
  metadata: z.optional(p.metadata()),
  description: z.optional(p.emptyable(p.string())),
})

function errorOf(run: () => unknown): StripeApiError {
  try {
    run()
  } catch (error) {
    if (error instanceof StripeApiError) return error
    throw error
  }
  throw new Error('expected a StripeApiError')
}

describe('parseParams', () => {
  it('names an unknown parameter, nested ones with brackets', () => {
    const error = errorOf(() => parseParams(schema, { customer: 'c', nested: { other: 'x' } }))
    expect(error.status).toBe(400)
    expect(error.body).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_unknown',
      param: 'nested[other]',
      message: 'Received unknown parameter: nested[other]',
    })
  })

  it('reports an unknown parameter before a missing one', () => {
    const error = errorOf(() => parseParams(schema, { bogus: 'x' }))
    expect(error.body.param).toBe('bogus')
  })

  it('reports a missing required parameter', () => {
    const error = errorOf(() => parseParams(schema, {}))
    expect(error.body).toMatchObject({ code: 'parameter_missing', param: 'customer' })
  })

  it('reports a malformed integer with its value', () => {
    const error = errorOf(() => parseParams(schema, { customer: 'c', quantity: 'two' }))
    expect(error.body).toMatchObject({
      code: 'parameter_invalid_integer',
      param: 'quantity',
      message: 'Invalid integer: two',
    })
  })

  it('converts form strings into numbers, booleans and nulls', () => {
    expect(
      parseParams(schema, { customer: 'c', quantity: '3', flag: 'false', description: '' }),
    ).toEqual({ customer: 'c', quantity: 3, flag: false, description: null })
  })

  it('refuses metadata values longer than Stripe allows', () => {
    const error = errorOf(() =>
      parseParams(schema, { customer: 'c', metadata: { k: 'x'.repeat(501) } }),
    )
    expect(error.body.param).toBe('metadata[k]')
  })
})
