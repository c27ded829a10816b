import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { deniedFeatures, securityHeaders } from './security-headers.ts'

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

  it('denies a page camera, microphone, geolocation and payment, and leaves the clipboard the app uses', async () => {
    const app = new Hono().use(securityHeaders()).get('/', (c) => c.html('<p>'))
    const policy = (await app.request('/')).headers.get('permissions-policy') ?? ''
    const denied = policy.split(', ').map((entry) => entry.replace(/=\(\)$/, ''))
    expect(denied).toEqual([...deniedFeatures])
    expect(denied).toEqual(
      expect.arrayContaining(['camera', 'microphone', 'geolocation', 'payment', 'usb']),
    )
    // The assistant's copy button writes to the clipboard.
    expect(policy).not.toContain('clipboard')
  })

  it('keeps a CSP the handler set itself (the host page’s)', async () => {
    const app = new Hono()
      .use(securityHeaders())
      .get('/', (c) => c.html('<p>', 200, { 'Content-Security-Policy': "default-src 'self'" }))
    const response = await app.request('/')
    expect(response.headers.get('content-security-policy')).toBe("default-src 'self'")
  })

  const everyResponse = {
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
    'strict-transport-security': 'max-age=15552000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  }
  const documentOnly = {
    'cross-origin-opener-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
    'reporting-endpoints': 'csp-endpoint="/api/csp-reports"',
  }

  it('sends a page the whole set, and on a response with immutable headers too', async () => {
    const page = new Response('<p>', { headers: { 'Content-Type': 'text/html; charset=UTF-8' } })
    const app = new Hono().use(securityHeaders()).get('/', () => page)
    const response = await app.request('/')
    expect(Object.fromEntries(response.headers)).toMatchObject({
      ...everyResponse,
      ...documentOnly,
    })
    expect(response.headers.get('permissions-policy')).toContain('camera=()')
    expect(response.headers.has('x-powered-by')).toBe(false)
  })

  it('sends an API answer or a redirect only what protects any resource, not the document’s set', async () => {
    const app = new Hono()
      .use(securityHeaders())
      .get('/api', (c) => c.json({}))
      .get('/', () => Response.redirect('http://localhost/elsewhere', 302))
    for (const path of ['/api', '/']) {
      const headers = Object.fromEntries((await app.request(path)).headers)
      expect(headers).toMatchObject(everyResponse)
      for (const name of [...Object.keys(documentOnly), 'permissions-policy'])
        expect(headers[name]).toBeUndefined()
    }
  })

  it('sends the same headers from a Node server, where the route’s own still win', async () => {
    const app = new Hono()
      .use(securityHeaders())
      .get('/api', (c) => c.json({}))
      .get('/page', (c) =>
        c.html('<p>', 200, {
          'Content-Security-Policy': "default-src 'self'",
          'X-Powered-By': 'x',
        }),
      )
      .get('/fails', () => {
        throw new Error('boom')
      })
      .onError((_error, c) => c.json({ error: 'failed' }, 500))
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      for (const path of ['/api', '/fails']) {
        const response = await fetch(`${base}${path}`)
        await response.arrayBuffer()
        expect(response.headers.get('x-frame-options')).toBe('DENY')
        expect(response.headers.get('strict-transport-security')).toBe(
          'max-age=15552000; includeSubDomains',
        )
        expect(response.headers.get('content-security-policy')).toBe(
          "default-src 'none'; frame-ancestors 'none'",
        )
      }
      const page = await fetch(`${base}/page`)
      expect(await page.text()).toBe('<p>')
      expect(page.headers.get('content-security-policy')).toBe("default-src 'self'")
      expect(page.headers.get('x-content-type-options')).toBe('nosniff')
      expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin')
      expect(page.headers.get('permissions-policy')).toContain('camera=()')
      expect(page.headers.has('x-powered-by')).toBe(false)
      const api = await fetch(`${base}/api`)
      await api.arrayBuffer()
      expect(api.headers.has('permissions-policy')).toBe(false)
      expect(api.headers.has('cross-origin-opener-policy')).toBe(false)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
