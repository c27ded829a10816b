import { ApiError } from '@tessera/contracts'
import Stripe from 'stripe'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createNodeFetch } from '../../platform/node-fetch.ts'
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

describe('Stripe on the Node entry’s fetch (node-fetch.ts)', () => {
  it('reads Stripe’s answers, sends its form bodies and ends a request at its timeout', async () => {
    const bodies: string[] = []
    const server = http.createServer((request, response) => {
      if (request.url === '/v1/subscriptions/sub_slow') return // never answered
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        bodies.push(body)
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ id: 'sub_1', object: 'subscription', status: 'active' }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const stripe = new Stripe('sk_test_node_fetch', {
      host: '127.0.0.1',
      port,
      protocol: 'http',
      httpClient: Stripe.createFetchHttpClient(createNodeFetch()),
      timeout: 200,
      maxNetworkRetries: 0,
    })
    try {
      expect(await stripe.subscriptions.retrieve('sub_1')).toMatchObject({ status: 'active' })
      await stripe.subscriptions.update('sub_1', { metadata: { seat: 'two' } })
      expect(bodies.at(-1)).toBe('metadata[seat]=two')
      const slow = await stripe.subscriptions.retrieve('sub_slow').catch((error: unknown) => error)
      expect(slow).toBeInstanceOf(Stripe.errors.StripeConnectionError)
      expect(toUpstreamError(slow)).toMatchObject({ code: 'upstream_timeout' })
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
