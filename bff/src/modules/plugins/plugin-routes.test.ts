import { createServer } from 'node:http'
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createLocalJWKSet, exportPKCS8, exportSPKI, generateKeyPair, jwtVerify } from 'jose'
import type { JSONWebKeySet } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { csrfHeaders, sseReader, TEST_ORIGIN } from '../../testing/app.ts'
import { databaseSetupTimeout, jsonOf, startIdentityTestApp } from '../../testing/identity.ts'
import type { IdentityTestApp, TestBrowser } from '../../testing/identity.ts'
import { createNodeUpstreamClient } from './node-upstream-client.ts'
import type { PluginTokenClaims } from './plugin-tokens.ts'

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** A plugin team's service on a free port: it records what it is sent and answers by path. */
async function startUpstream() {
  const seen: Seen[] = []
  const hanging = new Set<ServerResponse>()
  let releaseSecondEvent: () => void = () => undefined
  const secondEvent = new Promise<void>((resolve) => {
    releaseSecondEvent = resolve
  })
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const url = request.url ?? ''
      seen.push({
        method: request.method ?? '',
        url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      if (url.startsWith('/hang')) {
        hanging.add(response)
        return
      }
      if (url.startsWith('/boom')) {
        response.writeHead(500, { 'content-type': 'text/plain' })
        response.end('TypeError: secret internals at handler (/srv/notes/app.js:12:3)')
        return
      }
      if (url.startsWith('/missing')) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({ error: { code: 'note_not_found', message: 'No such note.' } }),
        )
        return
      }
      if (url.startsWith('/stream')) {
        response.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
        })
        response.write('event: note\ndata: first\n\n')
        void secondEvent.then(() => {
          response.write('event: note\ndata: second\n\n')
          response.end()
        })
        return
      }
      response.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': 'plugin_session=abc; Path=/',
        connection: 'keep-alive, x-upstream-hop',
        'x-upstream-hop': 'one connection only',
        'keep-alive': 'timeout=5',
        'proxy-authenticate': 'Basic realm="upstream"',
        'x-plugin-header': 'kept',
      })
      // Written in two parts: the answer is chunked (Transfer-Encoding), which must not pass on.
      response.write('{"ok":true,')
      response.end(`"path":${JSON.stringify(url)}}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    releaseSecondEvent,
    async close() {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** An origin nothing listens on (a port that was free a moment ago). */
async function deadOrigin(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

const timeoutMs = 400

describe('plugin APIs through the BFF', () => {
  let t: IdentityTestApp
  let upstream: Awaited<ReturnType<typeof startUpstream>>
  let user: TestBrowser
  let userId: string

  beforeAll(async () => {
    upstream = await startUpstream()
    const current = await generateKeyPair('ES256', { extractable: true })
    const previous = await generateKeyPair('ES256', { extractable: true })
    t = await startIdentityTestApp({
      env: {
        // As an operator sets them: PEMs, the private key with its line breaks escaped.
        PLUGIN_JWT_PRIVATE_KEY: (await exportPKCS8(current.privateKey)).replace(/\n/g, '\\n'),
        PLUGIN_JWT_PREVIOUS_PUBLIC_KEY: await exportSPKI(previous.publicKey),
        PLUGIN_UPSTREAMS: `notes=${upstream.origin},gone=${await deadOrigin()},folder=${upstream.origin}/base`,
        PLUGIN_TIMEOUT_MS: String(timeoutMs),
        BODY_LIMIT_BYTES: '1024',
      },
      deps: { pluginClient: createNodeUpstreamClient() },
    })
    user = await t.signUp('plugin-user@example.com')
    userId = (await jsonOf<{ user: { id: string } }>(await user.get('/api/me'))).user.id
  }, databaseSetupTimeout)

  afterAll(async () => {
    await t.finish()
    await upstream.close()
  })

  /** The requests the upstream got while `act` ran. */
  const during = async (act: () => Promise<unknown>): Promise<Seen[]> => {
    const before = upstream.seen.length
    await act()
    return upstream.seen.slice(before)
  }

  it('forwards a signed-in request with a token of the BFF’s own key, and no cookie', async () => {
    let response: Response | undefined
    const seen = await during(async () => {
      response = await user.request('/api/plugins/notes/items?limit=2', {
        headers: { 'x-request-id': 'req-plugin-0001' },
      })
    })
    expect(response?.status).toBe(200)
    expect(await response?.json()).toEqual({ ok: true, path: '/items?limit=2' })
    expect(seen).toHaveLength(1)
    const [request] = seen
    expect(request?.headers.cookie).toBeUndefined()
    expect(request?.headers['x-request-id']).toBe('req-plugin-0001')
    const authorization = request?.headers.authorization ?? ''
    expect(authorization).toMatch(/^Bearer /)

    const jwksResponse = await t.request('/.well-known/jwks.json')
    expect(jwksResponse.headers.get('cache-control')).toMatch(/max-age=\d+/)
    const jwks = (await jwksResponse.json()) as JSONWebKeySet
    const { payload, protectedHeader } = await jwtVerify<PluginTokenClaims>(
      authorization.slice('Bearer '.length),
      createLocalJWKSet(jwks),
      {
        issuer: 'http://app.tessera.test',
        audience: 'notes',
        algorithms: ['ES256'],
        currentDate: new Date(t.clock.now()),
      },
    )
    expect(protectedHeader.kid).toBe(jwks.keys[0]?.kid)
    // The key before the last rotation is still published, for tokens signed just before it.
    expect(jwks.keys).toHaveLength(2)
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true)
    expect(payload.sub).toBe(userId)
    expect(payload.email).toBe('plugin-user@example.com')
    expect(payload.entitlements.plan).toBe('free')
    expect(payload.exp - payload.iat).toBe(60)
    expect(payload.jti).toEqual(expect.any(String))
    // No Supabase token either: the only JWT the upstream saw is the BFF's.
    const everything = JSON.stringify(request?.headers)
    expect(everything.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g)).toHaveLength(1)
  })

  it('forwards a body with its type, after the CSRF check', async () => {
    const seen = await during(async () => {
      const response = await user.send('POST', '/api/plugins/notes/items', { title: 'Hello' })
      expect(response.status).toBe(200)
    })
    expect(seen[0]?.method).toBe('POST')
    expect(seen[0]?.body).toBe('{"title":"Hello"}')
    expect(seen[0]?.headers['content-type']).toBe('application/json')
  })

  it('refuses a signed-out visitor with 401 and forwards nothing', async () => {
    const seen = await during(async () => {
      const response = await t.browser().get('/api/plugins/notes/items')
      expect(response.status).toBe(401)
      expect((await jsonOf<{ error: { code: string } }>(response)).error.code).toBe(
        'unauthenticated',
      )
    })
    expect(seen).toEqual([])
  })

  it('refuses a POST without the CSRF header with 403 and forwards nothing', async () => {
    const seen = await during(async () => {
      const response = await user.request('/api/plugins/notes/items', {
        method: 'POST',
        headers: { origin: TEST_ORIGIN, 'content-type': 'application/json' },
        body: '{}',
      })
      expect(response.status).toBe(403)
    })
    expect(seen).toEqual([])
  })

  it('refuses a body over the limit with 413 and forwards nothing', async () => {
    const seen = await during(async () => {
      const response = await user.request('/api/plugins/notes/items', {
        method: 'POST',
        headers: csrfHeaders,
        body: JSON.stringify({ text: 'x'.repeat(2000) }),
      })
      expect(response.status).toBe(413)
    })
    expect(seen).toEqual([])
  })

  it('drops hop-by-hop headers both ways, and the upstream’s cookies', async () => {
    let response: Response | undefined
    const seen = await during(async () => {
      response = await user.request('/api/plugins/notes/headers', {
        headers: {
          connection: 'keep-alive, x-browser-hop',
          'x-browser-hop': 'for the BFF only',
          'keep-alive': 'timeout=5',
          te: 'trailers',
          trailer: 'x-checksum',
          upgrade: 'websocket',
          'proxy-authorization': 'Basic Zm9vOmJhcg==',
          authorization: 'Bearer from-the-browser',
          'x-forwarded-for': '203.0.113.9',
          'x-kept': 'yes',
        },
      })
    })
    const sent = seen[0]?.headers ?? {}
    for (const name of [
      'x-browser-hop',
      'keep-alive',
      'te',
      'trailer',
      'upgrade',
      'proxy-authorization',
      'x-forwarded-for',
    ])
      expect(sent[name], name).toBeUndefined()
    expect(sent.connection ?? '').not.toMatch(/x-browser-hop/)
    expect(sent.authorization).not.toBe('Bearer from-the-browser')
    expect(sent['x-kept']).toBe('yes')

    expect(response?.status).toBe(200)
    const received = response!.headers
    for (const name of [
      'x-upstream-hop',
      'keep-alive',
      'proxy-authenticate',
      'transfer-encoding',
      'connection',
    ])
      expect(received.get(name), name).toBeNull()
    expect(received.getSetCookie().filter((line) => line.startsWith('plugin_session'))).toEqual([])
    expect(received.get('x-plugin-header')).toBe('kept')
    expect(await response!.json()).toEqual({ ok: true, path: '/headers' })
  })

  it('passes an upstream’s 4xx with its own JSON body', async () => {
    const response = await user.get('/api/plugins/notes/missing')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: { code: 'note_not_found', message: 'No such note.' },
    })
  })

  it('answers an upstream’s 5xx with a catalogued 502, without its body', async () => {
    const response = await user.get('/api/plugins/notes/boom')
    expect(response.status).toBe(502)
    const text = await response.text()
    expect(text).not.toMatch(/internals/)
    expect(JSON.parse(text)).toMatchObject({
      error: { code: 'plugin_unavailable', details: { plugin: 'notes', upstreamStatus: 500 } },
    })
  })

  it('answers 504 within the timeout when the upstream hangs', async () => {
    const started = Date.now()
    const response = await user.get('/api/plugins/notes/hang')
    const elapsed = Date.now() - started
    expect(response.status).toBe(504)
    expect((await jsonOf<{ error: { code: string; message: string } }>(response)).error).toEqual(
      expect.objectContaining({ code: 'plugin_timeout', message: expect.stringMatching(/notes/) }),
    )
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50)
    expect(elapsed).toBeLessThan(timeoutMs + 2000)
  })

  it('answers 502 with a sentence when the upstream is unreachable', async () => {
    const response = await user.get('/api/plugins/gone/items')
    expect(response.status).toBe(502)
    const { error } = await jsonOf<{ error: { code: string; message: string } }>(response)
    expect(error.code).toBe('plugin_unavailable')
    expect(error.message).toMatch(/gone service could not be reached/)
  })

  it('streams an SSE answer event by event', async () => {
    const response = await user.get('/api/plugins/notes/stream')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const stream = sseReader(response)
    // The first event arrives while the upstream is still holding back the second.
    expect((await stream.next((frame) => frame.data === 'first')).event).toBe('note')
    expect(stream.frames.map((frame) => frame.data)).toEqual(['first'])
    upstream.releaseSecondEvent()
    await stream.next((frame) => frame.data === 'second')
    await stream.closed()
  })

  it('answers 404 with a sentence for a plugin no upstream is mapped for', async () => {
    const seen = await during(async () => {
      const response = await user.get('/api/plugins/tasks/items')
      expect(response.status).toBe(404)
      const { error } = await jsonOf<{ error: { code: string; message: string } }>(response)
      expect(error.code).toBe('not_found')
      expect(error.message).toMatch(/No service is set up for the plugin "tasks"/)
      expect(error.message).toMatch(/PLUGIN_UPSTREAMS/)
    })
    expect(seen).toEqual([])
  })

  it('answers odd names, paths and methods without a 5xx', async () => {
    const paths = [
      '/api/plugins/__proto__/x',
      '/api/plugins/constructor',
      '/api/plugins/hasOwnProperty/x',
      '/api/plugins/NOTES/items',
      '/api/plugins/%00/items',
      `/api/plugins/${'n'.repeat(300)}/items`,
      '/api/plugins/notes',
      '/api/plugins/notes/',
      '/api/plugins/notes?%ff=%00',
      '/api/plugins/notes/%2e%2e/%2e%2e/api/me',
      '/api/plugins/notes/a%2Fb/%E2%80%AE?q=%3Cscript%3E',
      '/api/plugins/notes//double//slashes',
    ]
    const statuses = new Set<number>()
    for (const path of paths) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        const response = await user.request(path, {
          method,
          headers: csrfHeaders,
          ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{"a":1}' }),
        })
        statuses.add(response.status)
        expect(response.status, `${method} ${path}`).toBeLessThan(500)
        await response.body?.cancel()
      }
    }
    expect(statuses).toContain(404)
  })

  it('forwards under an upstream’s folder and never above it', async () => {
    const seen = await during(async () => {
      const inside = await user.get('/api/plugins/folder/items')
      expect(inside.status).toBe(200)
      const above = await user.get('/api/plugins/folder/..%2F..%2Fsecret')
      expect(above.status).not.toBe(500)
    })
    expect(seen[0]?.url).toBe('/base/items')
    for (const request of seen) expect(request.url.startsWith('/base/')).toBe(true)
  })
})
