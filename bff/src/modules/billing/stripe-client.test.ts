import { ApiError } from '@tessera/contracts'
import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import {
  createStripeClients,
  interactiveMaxRetries,
  interactiveTimeoutMs,
  isStripeMissing,
  toUpstreamError,
} from './stripe-client.ts'

const raw = (
  statusCode: number,
  type: 'api_error' | 'invalid_request_error' = 'api_error',
  code?: string,
) => ({
  type,
  message: 'from the test',
  statusCode,
  ...(code === undefined ? {} : { code }),
})

describe('Stripe clients', () => {
  it('give people a short timeout and background work the SDK defaults', () => {
    const clients = createStripeClients({
      apiUrl: 'http://127.0.0.1:12111',
      secretKey: 'sk_test_x',
    })
    expect(clients.interactive.getApiField('timeout')).toBe(interactiveTimeoutMs)
    expect(clients.interactive.getMaxNetworkRetries()).toBe(interactiveMaxRetries)
    expect(clients.background.getApiField('timeout')).toBe(80_000)
    expect(clients.background.getMaxNetworkRetries()).toBe(2)
    expect(clients.background.getApiField('host')).toBe('127.0.0.1')
    expect(clients.background.getApiField('port')).toBe(12111)
    expect(clients.background.getApiField('protocol')).toBe('http')
  })

  it('default to https and its port for Stripe itself', () => {
    const { background } = createStripeClients({
      apiUrl: 'https://api.stripe.com',
      secretKey: 'sk_test_x',
    })
    expect(background.getApiField('port')).toBe(443)
    expect(background.getApiField('protocol')).toBe('https')
  })
})

describe('toUpstreamError', () => {
  it('turns a timeout into upstream_timeout and an unreachable Stripe into upstream_unavailable', () => {
    const timeout = new Stripe.errors.StripeConnectionError({
      message: 'Request aborted due to timeout being reached (3000ms)',
    })
    expect(toUpstreamError(timeout)).toMatchObject({ code: 'upstream_timeout' })
    const refused = new Stripe.errors.StripeConnectionError({ message: 'connection refused' })
    expect(toUpstreamError(refused)).toMatchObject({ code: 'upstream_unavailable' })
    for (const error of [
      new Stripe.errors.StripeAPIError(raw(500)),
      new Stripe.errors.StripeRateLimitError(raw(429, 'invalid_request_error', 'rate_limit')),
    ])
      expect(toUpstreamError(error)).toBeInstanceOf(ApiError)
  })

  it('leaves our own bad requests alone, to be logged as internal', () => {
    const invalid = new Stripe.errors.StripeInvalidRequestError(
      raw(400, 'invalid_request_error', 'parameter_unknown'),
    )
    expect(toUpstreamError(invalid)).toBe(invalid)
    const missing = new Stripe.errors.StripeInvalidRequestError(
      raw(404, 'invalid_request_error', 'resource_missing'),
    )
    expect(isStripeMissing(missing)).toBe(true)
    expect(isStripeMissing(invalid)).toBe(false)
  })
})
