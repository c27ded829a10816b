import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createOriginAllowlist } from '../origin-allowlist.ts'
import { corsAllowlist } from './cors-allowlist.ts'

const allowed = 'http://localhost:5173'

function app() {
  return new Hono()
    .use(corsAllowlist({ origins: createOriginAllowlist([allowed]) }))
    .get('/', (c) => c.text('ok'))
}

describe('corsAllowlist', () => {
  it('lets an allowed origin read responses with credentials', async () => {
    const response = await app().request('/', { headers: { origin: allowed } })
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed)
    expect(response.headers.get('access-control-allow-credentials')).toBe('true')
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id')
  })

  it('gives another origin no Access-Control-Allow-Origin and no credentials', async () => {
    const response = await app().request('/', { headers: { origin: 'https://evil.example' } })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    const preflight = await app().request('/', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull()
    const noOrigin = await app().request('/')
    expect(noOrigin.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it('answers a preflight with the CSRF header among the allowed headers', async () => {
    const response = await app().request('/', {
      method: 'OPTIONS',
      headers: {
        origin: allowed,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-tessera-csrf',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-headers')).toContain('x-tessera-csrf')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
  })

  it('adds Vary: Origin to what the route varies on, and its headers to errors too', async () => {
    const origins = createOriginAllowlist([allowed])
    const varying = new Hono()
      .use(corsAllowlist({ origins }))
      .get('/', (c) => c.text('ok', 200, { Vary: 'Cookie' }))
      .get('/fails', () => {
        throw new Error('boom')
      })
      .onError((_error, c) => c.json({ error: 'failed' }, 500))
    const response = await varying.request('/', { headers: { origin: allowed } })
    expect(response.headers.get('vary')).toBe('Cookie, Origin')
    const failed = await varying.request('/fails', { headers: { origin: allowed } })
    expect(failed.status).toBe(500)
    expect(failed.headers.get('access-control-allow-origin')).toBe(allowed)
  })
})
