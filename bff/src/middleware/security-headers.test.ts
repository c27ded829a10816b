import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { securityHeaders } from './security-headers.ts'

describe('securityHeaders', () => {
  it('sends Hono’s secure headers and a CSP that loads nothing', async () => {
    const app = new Hono().use(securityHeaders()).get('/', (c) => c.json({}))
    const response = await app.request('/')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    )
  })

  it('keeps a CSP the handler set itself (the host page’s)', async () => {
    const app = new Hono()
      .use(securityHeaders())
      .get('/', (c) => c.html('<p>', 200, { 'Content-Security-Policy': "default-src 'self'" }))
    const response = await app.request('/')
    expect(response.headers.get('content-security-policy')).toBe("default-src 'self'")
  })
})
