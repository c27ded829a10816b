import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import {
  answerFirstReads,
  firstReadRequest,
  firstReadsBlock,
  MAX_INLINED_READ_BYTES,
} from './first-reads.ts'
import type { AppEnv } from './app-env.ts'
import { hostPage, type HostAssets } from './host-page.ts'

const json = (body: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(body), {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  })

describe('answerFirstReads', () => {
  it('keeps each JSON answer as the server sent it, with the headers a read’s code looks at', async () => {
    const asked: string[] = []
    const { answers, cookies } = await answerFirstReads(
      ['/api/me', '/api/remotes', '/api/me'],
      async (path) => {
        asked.push(path)
        return path === '/api/me'
          ? json(
              { user: null },
              {
                headers: {
                  'tessera-events-position': '42',
                  'x-request-id': 'r-1',
                  'cache-control': 'no-store',
                  'content-security-policy': "default-src 'none'",
                },
              },
            )
          : json({ error: { code: 'unauthenticated' } }, { status: 401 })
      },
    )
    // Asked once each; a 401 is what the page would have been told, so it is carried too.
    expect(asked.sort()).toEqual(['/api/me', '/api/remotes'])
    expect(answers).toEqual({
      '/api/me': {
        status: 200,
        headers: {
          'content-type': 'application/json',
          'tessera-events-position': '42',
          'x-request-id': 'r-1',
        },
        body: '{"user":null}',
      },
      '/api/remotes': {
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: '{"error":{"code":"unauthenticated"}}',
      },
    })
    expect(cookies).toEqual([])
  })

  it('leaves to the page a read that failed, that is not JSON or that is too big to wait for', async () => {
    const { answers, cookies } = await answerFirstReads(
      ['/api/a', '/api/b', '/api/c', '/api/d', '/api/e'],
      async (path) => {
        if (path === '/api/a') throw new Error('the database is away')
        if (path === '/api/b')
          return json({}, { status: 503, headers: { 'set-cookie': 'tessera_session=new' } })
        if (path === '/api/c') return new Response('<p>proxy error</p>', { status: 200 })
        if (path === '/api/d') return json({ text: 'x'.repeat(MAX_INLINED_READ_BYTES) })
        return json({ ok: true })
      },
    )
    expect(Object.keys(answers)).toEqual(['/api/e'])
    // A renewed session cookie reaches the browser whether or not its answer is carried.
    expect(cookies).toEqual(['tessera_session=new'])
  })
})

describe('firstReadsBlock', () => {
  it('carries any text of an answer without letting it end the element', () => {
    const answers = {
      '/api/me': {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: '</script><script>alert(1)</script> & <!--' }),
      },
    }
    const block = firstReadsBlock(answers)
    const inner = block.slice(block.indexOf('>') + 1, block.lastIndexOf('</script>'))
    expect(inner).not.toMatch(/[<>&]/)
    expect(JSON.parse(inner)).toEqual(answers)
    expect(block.startsWith('<script type="application/json" id="tessera-first-reads">')).toBe(true)
  })
})

describe('firstReadRequest', () => {
  it('asks as the page’s request did (cookies, client), for plain JSON, whole and unconditional', () => {
    const page = new Request('https://app.example.com/assistant?x=1', {
      headers: {
        cookie: 'tessera_session=s',
        'x-forwarded-for': '203.0.113.9',
        'user-agent': 'Phone',
        accept: 'text/html',
        'accept-encoding': 'gzip, br',
        'if-none-match': '"page"',
        range: 'bytes=0-10',
      },
    })
    const read = firstReadRequest(page, '/api/assistant/conversations?limit=20')
    expect(read.url).toBe('https://app.example.com/api/assistant/conversations?limit=20')
    expect(read.method).toBe('GET')
    expect(Object.fromEntries(read.headers)).toEqual({
      accept: 'application/json',
      cookie: 'tessera_session=s',
      'user-agent': 'Phone',
      'x-forwarded-for': '203.0.113.9',
    })
  })
})

describe('the host page with its first reads', () => {
  const template =
    '<!doctype html><html><head><link rel="preload" href="/api/me" as="fetch" crossorigin="use-credentials" /><link rel="preload" href="/api/remotes" as="fetch" crossorigin="use-credentials" /><script type="module" src="/assets/index.js"></script></head><body></body></html>'
  const assets: HostAssets = { indexHtml: async () => template, serve: async () => null }

  function appReading(read: (path: string) => Promise<Response>) {
    return new Hono<AppEnv>().all(
      '*',
      async (c) =>
        (await hostPage(c, {
          assets,
          readSnapshot: async () => ({
            generatedAt: new Date(0).toISOString(),
            remotes: [],
            diagnostics: [],
          }),
          read,
        })) ?? c.text('none', 404),
    )
  }

  it('answers the page’s preloaded reads in it, passes on their cookies and keeps the page private', async () => {
    const app = appReading(async (path) =>
      path === '/api/me'
        ? json({ user: null }, { headers: { 'set-cookie': 'tessera_session=renewed; HttpOnly' } })
        : json({}, { status: 502 }),
    )
    const response = await app.request('/assistant', { headers: { accept: 'text/html' } })
    const html = await response.text()
    // The session is in the page and preloaded no more; the remotes' read failed here, so the
    // page asks for it as before (its preload and its Link entry stay).
    expect(html).not.toContain('href="/api/me"')
    expect(html).toContain('href="/api/remotes"')
    expect(html).toContain('{"/api/me":{"status":200,')
    expect(response.headers.get('link')).toBe(
      '</assets/index.js>; rel=modulepreload, </api/remotes>; rel=preload; as=fetch; crossorigin=use-credentials',
    )
    expect(response.headers.getSetCookie()).toEqual(['tessera_session=renewed; HttpOnly'])
    expect(response.headers.get('cache-control')).toBe('private, no-cache')
  })

  it('reads nothing for a HEAD, which has no body to carry the answers', async () => {
    let reads = 0
    const app = appReading(async () => {
      reads += 1
      return json({ user: null })
    })
    const response = await app.request('/assistant', { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(response.headers.get('link')).toContain('</api/me>')
    expect(reads).toBe(0)
  })
})
