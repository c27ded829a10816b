import { readFile } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import { errorBodySchema, errorCatalogue } from '@tessera/contracts'
import type { MeResponse } from '@tessera/contracts'
import type { Context } from 'hono'
import { hc } from 'hono/client'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { AppType } from './app.ts'
import type { HostAssets } from './host-page.ts'
import { createLiveEvent } from '../modules/events/event-hub.ts'
import { createTestApp, csrfHeaders, remoteEntry, sseReader } from '../testing/app.ts'

const indexHtml = '<!doctype html><html><body><div id="root"></div></body></html>'

/** A built host in memory: index.html plus one hashed asset. */
function fakeAssets(overrides: Partial<HostAssets> = {}): HostAssets {
  return {
    indexHtml: async () => indexHtml,
    serve: async (c: Context) =>
      c.req.path === '/assets/index-abc.js'
        ? new Response('console.log(1)', { headers: { 'content-type': 'text/javascript' } })
        : null,
    ...overrides,
  }
}

const registry = {
  remotes: [
    remoteEntry({
      name: 'billing',
      entryUrl: 'http://localhost:8788/billing/1.2.3/assets/remoteEntry.js',
    }),
    remoteEntry({
      name: 'auth',
      basePath: '/auth',
      entryUrl: 'https://cdn.example.com/auth/2.0.0/assets/remoteEntry.js',
    }),
  ],
}

describe('createApp', () => {
  it('answers an unknown /api path with the not_found JSON, even to a browser', async () => {
    const { app } = createTestApp({ deps: { assets: fakeAssets() } })
    for (const accept of ['application/json', 'text/html']) {
      const response = await app.request('/api/nope', { headers: { accept } })
      expect(response.status).toBe(404)
      const body = errorBodySchema.parse(await response.json())
      expect(body.error.code).toBe('not_found')
      expect(body.error.requestId).toBe(response.headers.get('x-request-id'))
    }
  })

  it('serves the host’s index.html for a client route, with a CSP listing the remotes’ origins', async () => {
    const { app } = createTestApp({ registry, deps: { assets: fakeAssets() } })
    for (const path of ['/', '/billing/plans', '/index.html']) {
      const response = await app.request(path, {
        headers: { accept: 'text/html,application/xhtml+xml' },
      })
      expect(response.status).toBe(200)
      expect(await response.text()).toBe(indexHtml)
      expect(response.headers.get('cache-control')).toBe('private, no-cache')
      const csp = response.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("script-src 'self' http://localhost:8788 https://cdn.example.com")
      expect(csp).toContain("frame-ancestors 'none'")
    }
  })

  it('serves the host’s static files and answers not_found for a missing one', async () => {
    const { app } = createTestApp({ deps: { assets: fakeAssets() } })
    const found = await app.request('/assets/index-abc.js')
    expect(found.status).toBe(200)
    expect(await found.text()).toBe('console.log(1)')
    const missing = await app.request('/assets/missing.js', { headers: { accept: '*/*' } })
    expect(missing.status).toBe(404)
    expect(errorBodySchema.parse(await missing.json()).error.code).toBe('not_found')
  })

  it('answers not_found for a client route when the host is not built', async () => {
    const { app } = createTestApp({ deps: { assets: fakeAssets({ indexHtml: async () => null }) } })
    const response = await app.request('/billing', { headers: { accept: 'text/html' } })
    expect(response.status).toBe(404)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('not_found')
  })

  it('answers method_not_allowed with Allow for a known path and the wrong method', async () => {
    const { app } = createTestApp()
    const response = await app.request('/api/telemetry/remote-errors')
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('method_not_allowed')
  })

  it('turns an unexpected failure into internal 500 with the request id only, and logs the stack', async () => {
    const { app, logs } = createTestApp({
      deps: {
        assets: fakeAssets({
          indexHtml: async () => {
            throw new Error('disk on fire at /srv/secret')
          },
        }),
      },
    })
    const response = await app.request('/billing', { headers: { accept: 'text/html' } })
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(text).not.toContain('disk on fire')
    const body = errorBodySchema.parse(JSON.parse(text))
    expect(body).toEqual({
      error: {
        code: 'internal',
        message: errorCatalogue.internal.message,
        requestId: response.headers.get('x-request-id'),
      },
    })
    const logged = logs.find((line) => line.msg === 'request failed') as
      { error: { stack: string }; requestId: string } | undefined
    expect(logged?.error.stack).toContain('disk on fire')
    expect(logged?.requestId).toBe(body.error.requestId)
  })

  it('sends the secure headers on every response', async () => {
    const { app } = createTestApp()
    const response = await app.request('/api/health')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
  })

  it('lets an allowed origin read /api responses cross-origin, errors included', async () => {
    const { app } = createTestApp()
    const response = await app.request('/api/nope', { headers: { origin: csrfHeaders.origin } })
    expect(response.headers.get('access-control-allow-origin')).toBe(csrfHeaders.origin)
    expect(response.headers.get('access-control-allow-credentials')).toBe('true')
  })

  it('refuses a body over BODY_LIMIT_BYTES on any /api path with 413', async () => {
    const { app } = createTestApp({ env: { BODY_LIMIT_BYTES: '100' } })
    const response = await app.request('/api/nope', {
      method: 'POST',
      body: 'x'.repeat(101),
      headers: csrfHeaders,
    })
    expect(response.status).toBe(413)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('payload_too_large')
  })
})

describe('AppType', () => {
  it('gives the typed client every route, with bodies typed end to end', async () => {
    const { app, hub, clock } = createTestApp()
    const client = hc<AppType>('http://localhost', {
      fetch: (input: Request | string | URL, init?: RequestInit) => app.request(input, init),
    })

    const health = await (await client.api.health.$get()).json()
    expectTypeOf(health).toEqualTypeOf<{ status: 'ok'; version: string; uptimeSeconds: number }>()
    expect(health.status).toBe('ok')

    const snapshot = await (await client.api.remotes.$get()).json()
    expectTypeOf(snapshot.remotes[0]).toMatchTypeOf<
      { name: string; entryUrl: string } | undefined
    >()
    expect(snapshot.remotes[0]?.name).toBe('billing')

    const accepted = await client.api.telemetry['remote-errors'].$post(
      { json: { remote: 'billing', version: '1.2.3', stage: 'mount', message: 'boom' } },
      { headers: csrfHeaders },
    )
    expect(accepted.status).toBe(202)

    const me = await (await client.api.me.$get()).json()
    expect(me).toEqual({ user: null })
    expectTypeOf(me).toEqualTypeOf<MeResponse>()
    expectTypeOf<
      Parameters<(typeof client.api.auth)['sign-in']['$post']>[0]['json']
    >().toEqualTypeOf<{
      email: string
      password: string
    }>()

    const events = await client.api.events.$get()
    const stream = sseReader(events)
    await stream.next((frame) => frame.data.includes('connection.opened'))
    hub.publish({ topic: 'broadcast', event: createLiveEvent('hello', {}, clock) })
    await stream.next((frame) => frame.data.includes('"hello"'))
    await stream.cancel()
  })
})

describe('app.ts', () => {
  it('reaches no Node API: every module it imports, even for types, is Web-standard', async () => {
    const nodeOnly = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)])
    const seen = new Set<string>()
    const queue = [new URL('./app.ts', import.meta.url).href]
    while (queue.length > 0) {
      const file = queue.pop() ?? ''
      if (seen.has(file)) continue
      seen.add(file)
      const source = await readFile(new URL(file), 'utf8')
      expect(source, `${file} reads process`).not.toMatch(/\bprocess\./)
      for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const specifier = match[1] ?? ''
        if (specifier.startsWith('.')) {
          queue.push(new URL(specifier, file).href)
        } else {
          expect(
            nodeOnly.has(specifier) || specifier.startsWith('@hono/node-server'),
            `${file} imports ${specifier}`,
          ).toBe(false)
        }
      }
    }
    expect(seen.size).toBeGreaterThan(10)
  })
})
