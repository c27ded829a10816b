import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createOriginAllowlist } from '../origin-allowlist.ts'
import { csrf } from './csrf.ts'
import { bareApp } from '../../testing/middleware-app.ts'

const allowed = 'http://localhost:5173'

function app() {
  return bareApp()
    .use(csrf({ origins: createOriginAllowlist([allowed]) }))
    .get('/', (c) => c.text('read'))
    .post('/', (c) => c.text('changed'))
    .delete('/', (c) => c.text('deleted'))
}

async function codeOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error
}

describe('csrf', () => {
  it('lets a state-changing request through with the header and an allowed Origin', async () => {
    const response = await app().request('/', {
      method: 'POST',
      headers: { origin: allowed, 'x-tessera-csrf': '1' },
    })
    expect(response.status).toBe(200)
  })

  it('does not check safe methods', async () => {
    expect((await app().request('/', { headers: { origin: 'https://evil.example' } })).status).toBe(
      200,
    )
  })

  it('refuses a request without the custom header', async () => {
    const response = await app().request('/', { method: 'POST', headers: { origin: allowed } })
    expect(response.status).toBe(403)
    expect(await codeOf(response)).toMatchObject({
      code: 'csrf_failed',
      details: { reason: expect.stringContaining('x-tessera-csrf') as string },
    })
  })

  it('refuses a request from an origin that is not allowed, whatever the method', async () => {
    for (const method of ['POST', 'DELETE']) {
      const response = await app().request('/', {
        method,
        headers: { origin: 'https://evil.example', 'x-tessera-csrf': '1' },
      })
      expect(response.status).toBe(403)
      expect((await codeOf(response)).code).toBe('csrf_failed')
    }
  })

  it('refuses a request with no Origin, even one a browser marks same-origin', async () => {
    const cases: Record<string, string>[] = [
      { 'x-tessera-csrf': '1' },
      { 'x-tessera-csrf': '1', 'sec-fetch-site': 'same-origin' },
    ]
    for (const headers of cases) {
      const response = await app().request('/', { method: 'POST', headers })
      expect(response.status).toBe(403)
    }
  })

  it('refuses the opaque origin "null" of sandboxed frames', async () => {
    const response = await app().request('/', {
      method: 'POST',
      headers: { origin: 'null', 'x-tessera-csrf': '1' },
    })
    expect(response.status).toBe(403)
  })

  it('leaves exactly the signature-authenticated paths to their own check', async () => {
    const signed = bareApp()
      .use(csrf({ origins: createOriginAllowlist([allowed]), exemptPaths: ['/hooks/stripe'] }))
      .post('/hooks/stripe', (c) => c.text('signed'))
      .post('/hooks/stripe/more', (c) => c.text('other'))
    expect((await signed.request('/hooks/stripe', { method: 'POST' })).status).toBe(200)
    expect((await signed.request('/hooks/stripe/more', { method: 'POST' })).status).toBe(403)
  })

  it('lets the browser’s own CSP violation reports through, and only at their path', async () => {
    const reports = app()
      .post('/api/csp-reports', (c) => c.text('logged'))
      .post('/api/csp-reports/more', (c) => c.text('other'))
    expect((await reports.request('/api/csp-reports', { method: 'POST' })).status).toBe(200)
    expect((await reports.request('/api/csp-reports/more', { method: 'POST' })).status).toBe(403)
  })

  it('leaves bearer-only APIs under an exempt prefix to their own check, and nothing else', async () => {
    const bearer = bareApp()
      .use(csrf({ origins: createOriginAllowlist([allowed]), exemptPrefixes: ['/api/deploy/'] }))
      .post('/api/deploy/remotes/billing/promote', (c) => c.text('moved'))
      .post('/api/deployment', (c) => c.text('other'))
    const exempt = await bearer.request('/api/deploy/remotes/billing/promote', { method: 'POST' })
    expect(exempt.status).toBe(200)
    expect((await bearer.request('/api/deployment', { method: 'POST' })).status).toBe(403)
  })
})
