import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createRateLimiter } from '../../platform/rate-limiter.ts'
import { createManualClock } from '../../testing/app.ts'
import { rateLimit } from './rate-limit.ts'
import { bareApp } from '../../testing/middleware-app.ts'

function app(
  keyOf?: (c: { req: { header(name: string): string | undefined } }) => string | undefined,
) {
  const limiter = createRateLimiter({
    limit: 2,
    windowMs: 60_000,
    clock: createManualClock(),
    name: 'test',
  })
  return bareApp()
    .use(rateLimit({ limiter, keyOf }))
    .get('/', (c) => c.text('ok'))
}

describe('rateLimit', () => {
  it('answers rate_limited with Retry-After once the client is over its limit', async () => {
    const limited = app()
    expect((await limited.request('/')).status).toBe(200)
    expect((await limited.request('/')).status).toBe(200)
    const response = await limited.request('/')
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('60')
    expect(response.headers.get('ratelimit')).toBe('"test";r=0;t=60')
    expect(errorBodySchema.parse(await response.json()).error).toMatchObject({
      code: 'rate_limited',
      details: { retryAfterSeconds: 60 },
    })
  })

  it('tells every client its policy and what is left of it, in the draft RateLimit fields', async () => {
    const response = await app().request('/')
    expect(response.headers.get('ratelimit-policy')).toBe('"test";q=2;w=60')
    expect(response.headers.get('ratelimit')).toBe('"test";r=1;t=60')
  })

  it('ignores x-forwarded-for, which any client can set', async () => {
    const limited = app()
    for (const forwarded of ['1.1.1.1', '2.2.2.2']) {
      await limited.request('/', { headers: { 'x-forwarded-for': forwarded } })
    }
    const response = await limited.request('/', { headers: { 'x-forwarded-for': '3.3.3.3' } })
    expect(response.status).toBe(429)
  })

  it('counts clients apart by the key the runtime gives', async () => {
    const limited = app((c) => c.req.header('x-test-client'))
    for (let n = 0; n < 2; n += 1) await limited.request('/', { headers: { 'x-test-client': 'a' } })
    expect((await limited.request('/', { headers: { 'x-test-client': 'a' } })).status).toBe(429)
    expect((await limited.request('/', { headers: { 'x-test-client': 'b' } })).status).toBe(200)
  })
})
