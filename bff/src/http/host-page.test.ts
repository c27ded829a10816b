import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import type { Context } from 'hono'
import { describe, expect, it } from 'vitest'
import {
  acceptsOnlyJson,
  linkHeader,
  ROUTE_HINTS_MARKER,
  routeHints,
  withRouteHints,
  type HostAssets,
} from './host-page.ts'
import { OVERRIDE_COOKIE } from '../modules/registry/remote-overrides.ts'
import { sessionCookieName } from './middleware/session.ts'
import { createTestApp, remoteEntry } from '../testing/app.ts'

const assets: HostAssets = {
  indexHtml: async () => '<!doctype html><div id="root"></div>',
  serve: async (_c: Context) => null,
}

const billing = remoteEntry({
  name: 'billing',
  version: '1.0.0',
  entryUrl: 'https://cdn.example.com/billing/1.0.0/assets/remoteEntry.js',
})
const auth = remoteEntry({
  name: 'auth',
  basePath: '/auth',
  version: '1.0.0',
  entryUrl: 'https://cdn.example.com/auth/1.0.0/assets/remoteEntry.js',
})

/** The sources of one directive of the page's CSP. */
async function scriptSources(
  app: ReturnType<typeof createTestApp>['app'],
  cookie?: string,
): Promise<string[]> {
  const response = await app.request('/billing', {
    headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) },
  })
  expect(response.status).toBe(200)
  const policy = response.headers.get('content-security-policy') ?? ''
  const directive = policy
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([name]) => name === 'script-src')
  return directive?.slice(1) ?? []
}

const overrideCookie = (entryUrl: string, remote = 'billing') =>
  `${OVERRIDE_COOKIE}=${encodeURIComponent(JSON.stringify([{ remote, entryUrl, label: 'preview' }]))}`

describe('hostPage', () => {
  it('allows the origins the registry serves now, not a fixed list', async () => {
    const { app, setRegistry } = createTestApp({
      registry: { remotes: [billing, auth] },
      deps: { assets },
    })
    expect(await scriptSources(app)).toEqual(["'self'", 'https://cdn.example.com'])

    setRegistry({
      remotes: [
        { ...billing, entryUrl: 'https://storage.example.com/billing/1.1.0/assets/remoteEntry.js' },
        auth,
      ],
    })
    expect(await scriptSources(app)).toEqual([
      "'self'",
      'https://cdn.example.com',
      'https://storage.example.com',
    ])

    setRegistry({ remotes: [] })
    expect(await scriptSources(app)).toEqual(["'self'"])
  })

  it('adds this browser’s override origin for this browser only', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing, auth] }, deps: { assets } })
    const cookie = overrideCookie('http://localhost:5174/assets/remoteEntry.js')
    expect(await scriptSources(app, cookie)).toEqual([
      "'self'",
      'http://localhost:5174',
      'https://cdn.example.com',
    ])
    expect(await scriptSources(app)).toEqual(["'self'", 'https://cdn.example.com'])
  })

  it('drops the registry’s origin when the override replaces the only remote served from it', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing] }, deps: { assets } })
    const cookie = overrideCookie('http://127.0.0.1:4173/assets/remoteEntry.js')
    expect(await scriptSources(app, cookie)).toEqual(["'self'", 'http://127.0.0.1:4173'])
  })

  it('serves the page with the registry’s origins whatever the overrides cookie holds', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing] }, deps: { assets } })
    for (const cookie of [`${OVERRIDE_COOKIE}=%ZZ`, `${OVERRIDE_COOKIE}=${'{'.repeat(500)}`]) {
      expect(await scriptSources(app, cookie)).toEqual(["'self'", 'https://cdn.example.com'])
    }
  })

  it('never allows an override origin the config does not', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing] }, deps: { assets } })
    const cookie = overrideCookie('https://evil.example.com/remoteEntry.js')
    expect(await scriptSources(app, cookie)).toEqual(["'self'", 'https://cdn.example.com'])
  })

  it('allows a running canary’s origin, which the page’s snapshot may then serve', async () => {
    const canary = remoteEntry({
      name: 'billing',
      version: '1.1.0',
      entryUrl: 'https://canary.example.com/billing/1.1.0/assets/remoteEntry.js',
    })
    const { app } = createTestApp({
      registry: { remotes: [{ ...billing, canary: { percentage: 10, remote: canary } }] },
      deps: { assets },
    })
    expect(await scriptSources(app)).toEqual([
      "'self'",
      'https://canary.example.com',
      'https://cdn.example.com',
    ])
  })

  it('tells caches the page differs per cookie and is this viewer’s alone', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing] }, deps: { assets } })
    const response = await app.request('/', { headers: { accept: 'text/html' } })
    expect(response.headers.get('vary')).toContain('Cookie')
    expect(response.headers.get('cache-control')).toBe('private, no-cache')
  })

  it('answers the page to HEAD and to any Accept that is not JSON only (uptime probes, curl -I)', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing] }, deps: { assets } })
    for (const accept of [
      undefined,
      '*/*',
      'text/html',
      'text/plain',
      'application/json, text/html',
    ]) {
      const init = accept === undefined ? {} : { headers: { accept } }
      const get = await app.request('/assistant', init)
      expect(get.status, `GET with Accept ${accept}`).toBe(200)
      expect(get.headers.get('content-type')).toContain('text/html')
      const head = await app.request('/', { ...init, method: 'HEAD' })
      expect(head.status, `HEAD with Accept ${accept}`).toBe(200)
      expect(head.headers.get('content-security-policy')).toContain('script-src')
      expect(await head.text()).toBe('')
    }
    const json = await app.request('/assistant', { headers: { accept: 'application/json' } })
    expect(json.status).toBe(404)
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('not_found')
  })
})

describe('acceptsOnlyJson', () => {
  it('is true only when every range is JSON', () => {
    expect(acceptsOnlyJson('application/json')).toBe(true)
    expect(acceptsOnlyJson('application/problem+json; q=0.9, application/json')).toBe(true)
    expect(acceptsOnlyJson('application/json, */*;q=0.1')).toBe(false)
    expect(acceptsOnlyJson('')).toBe(false)
    expect(acceptsOnlyJson(undefined)).toBe(false)
  })

  it('sends the page gzipped to a browser that accepts it', async () => {
    const { app } = createTestApp({ registry: { remotes: [billing] }, deps: { assets } })
    for (let round = 0; round < 2; round++) {
      const response = await app.request('/billing', {
        headers: { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' },
      })
      expect(response.headers.get('content-encoding')).toBe('gzip')
      expect(response.headers.get('vary')).toBe('Cookie, Accept-Encoding')
      const bytes = new Uint8Array(await response.arrayBuffer())
      expect(response.headers.get('content-length')).toBe(String(bytes.byteLength))
      expect(gunzipSync(bytes).toString()).toBe(await assets.indexHtml())
    }
    const plain = await app.request('/billing', { headers: { accept: 'text/html' } })
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(await plain.text()).toBe(await assets.indexHtml())
  })
})

describe('the page’s preload hints for the route’s remote', () => {
  const page: HostAssets = {
    indexHtml: async () =>
      `<!doctype html><html><head>${ROUTE_HINTS_MARKER}<script type="module" src="/assets/index.js"></script></head><body><div id="root"></div></body></html>`,
    serve: async (_c: Context) => null,
  }
  const cdn = 'https://cdn.example.com/billing/1.0.0/assets'
  const billingWithFiles = {
    ...billing,
    preload: [
      `${cdn}/__federation_expose_Plugin-a1.js`,
      `${cdn}/__federation_expose_Plugin-a1.css`,
    ],
  }

  // Any value: the hints look at whether the cookie is there, never at the session it names.
  const signedIn = `${sessionCookieName({ secure: false })}=a-session`

  async function headOf(
    app: ReturnType<typeof createTestApp>['app'],
    path: string,
    cookie?: string,
  ) {
    const response = await app.request(path, {
      headers: { accept: 'text/html', ...(cookie === undefined ? {} : { cookie }) },
    })
    expect(response.status).toBe(200)
    const html = await response.text()
    return html.slice(0, html.indexOf('</head>'))
  }

  it('lists the route’s remote entry and its first files, so they download with the host', async () => {
    const { app } = createTestApp({
      registry: { remotes: [billingWithFiles, auth] },
      deps: { assets: page },
    })
    const head = await headOf(app, '/billing/plans', signedIn)
    expect(head).toContain(
      `<link rel="modulepreload" crossorigin href="${cdn}/remoteEntry.js"><link rel="modulepreload" crossorigin href="${cdn}/__federation_expose_Plugin-a1.js"><link rel="preload" as="style" href="${cdn}/__federation_expose_Plugin-a1.css">`,
    )
    // After the host's own script, which the browser should ask for first.
    expect(head.indexOf('<script')).toBeLessThan(head.indexOf('<link'))
    // Another remote's page carries that remote's entry only.
    const authHead = await headOf(app, '/auth/sign-in')
    expect(authHead).toContain(`href="${auth.entryUrl}"`)
    expect(authHead).not.toContain('billing')
  })

  it('sends the page’s first files in a Link header too, each in the mode the page asks in', async () => {
    const viteHead = [
      '<link rel="icon" href="data:image/svg+xml,x" type="image/svg+xml" />',
      '<link rel="preload" href="/api/me" as="fetch" crossorigin="use-credentials" />',
      ROUTE_HINTS_MARKER,
      '<script type="module" crossorigin src="/assets/index-1.js"></script>',
      '<link rel="modulepreload" crossorigin href="/assets/react-1.js">',
      '<link rel="stylesheet" crossorigin href="/assets/index-1.css">',
      '<link rel="modulepreload" href="https://elsewhere.example/x.js">',
      '<link rel="preload" as="style" href="//elsewhere.example/y.css">',
    ].join('')
    const vite: HostAssets = {
      indexHtml: async () => `<!doctype html><html><head>${viteHead}</head><body></body></html>`,
      serve: async (_c: Context) => null,
    }
    const reads = ['/api/billing/subscription']
    const { app } = createTestApp({
      registry: { remotes: [{ ...billingWithFiles, firstReads: reads }, auth] },
      deps: { assets: vite },
    })
    const response = await app.request('/billing', {
      headers: { accept: 'text/html', cookie: signedIn },
    })
    // The code first (the longest downloads), then the styles; the host's own files, on its origin
    // only, then the route's. The reads are answered in the page (first-reads.ts), not named.
    expect(response.headers.get('link')?.split(', ')).toEqual([
      '</assets/index-1.js>; rel=modulepreload',
      '</assets/react-1.js>; rel=modulepreload',
      `<${cdn}/remoteEntry.js>; rel=modulepreload`,
      `<${cdn}/__federation_expose_Plugin-a1.js>; rel=modulepreload`,
      '</assets/index-1.css>; rel=preload; as=style; crossorigin',
      `<${cdn}/__federation_expose_Plugin-a1.css>; rel=preload; as=style`,
    ])
    // A page no remote owns still gets the host's own; the header and the page agree.
    const home = await app.request('/', { headers: { accept: 'text/html' } })
    expect(home.headers.get('link')).toBe(
      '</assets/index-1.js>; rel=modulepreload, </assets/react-1.js>; rel=modulepreload, </assets/index-1.css>; rel=preload; as=style; crossorigin',
    )
    // Reads the page could not answer come last, after the code and the styles.
    expect(
      linkHeader(`<head>${viteHead}</head>`, [
        { rel: 'fetch', href: '/api/billing/subscription' },
        { rel: 'preload', href: `${cdn}/a.css` },
      ]).split(', '),
    ).toEqual([
      '</assets/index-1.js>; rel=modulepreload',
      '</assets/react-1.js>; rel=modulepreload',
      '</assets/index-1.css>; rel=preload; as=style; crossorigin',
      `<${cdn}/a.css>; rel=preload; as=style`,
      '</api/me>; rel=preload; as=fetch; crossorigin=use-credentials',
      '</api/billing/subscription>; rel=preload; as=fetch; crossorigin=use-credentials',
    ])
    expect(linkHeader('<html><body><script type="module" src="/x.js"></script></body>', [])).toBe(
      '',
    )
  })

  it('hints the sign-in page’s files to a visitor without a session, whom the host sends there', async () => {
    const publicBilling = { ...billingWithFiles, publicPaths: ['/plans'] }
    const { app } = createTestApp({
      registry: { remotes: [publicBilling, auth] },
      deps: { assets: page },
    })
    const visitor = await headOf(app, '/billing/invoices')
    expect(visitor).toContain(`href="${auth.entryUrl}"`)
    expect(visitor).not.toContain('billing')
    // A public page, and the sign-in page's own remote, are the visitor's own to see.
    expect(await headOf(app, '/billing/plans')).toContain(`href="${cdn}/remoteEntry.js"`)
    expect(await headOf(app, '/billing/plans/')).toContain(`href="${cdn}/remoteEntry.js"`)
    expect(await headOf(app, '/auth/sign-up')).toContain(`href="${auth.entryUrl}"`)
    // With a session cookie the page is the one asked for.
    expect(await headOf(app, '/billing/invoices', signedIn)).toContain(
      `href="${cdn}/remoteEntry.js"`,
    )
    // With no remote owning the sign-in page nothing is guarded, so nothing changes.
    expect(routeHints('/billing', { remotes: [billingWithFiles] }, { signedOut: true })).toEqual(
      routeHints('/billing', { remotes: [billingWithFiles] }),
    )
  })

  it('answers in the page the reads a remote’s page makes first, with a session cookie only', async () => {
    const reads = ['/api/billing/invoices?limit=10', '/api/billing/subscription']
    const billing = { ...billingWithFiles, firstReads: reads }
    const { app } = createTestApp({
      registry: { remotes: [billing, auth] },
      deps: { assets: page },
    })
    const answered = (head: string): Record<string, { status: number; body: string }> => {
      const block =
        /<script type="application\/json" id="tessera-first-reads">(.*?)<\/script>/.exec(head)
      return block === null ? {} : JSON.parse(block[1]!)
    }
    // Each read as the BFF answers it to this cookie (this session is unknown: a 401), and no
    // preload of it.
    const head = await headOf(app, '/billing/invoices', signedIn)
    expect(Object.keys(answered(head)).sort()).toEqual(reads)
    const direct = await app.request('/api/billing/subscription', {
      headers: { accept: 'application/json', cookie: signedIn },
    })
    const answer = answered(head)['/api/billing/subscription']!
    expect(answer.status).toBe(direct.status)
    // The same answer but for its request id.
    const withoutId = (body: string) => body.replace(/"requestId":"[^"]*"/, '')
    expect(withoutId(answer.body)).toBe(withoutId(await direct.text()))
    expect(head).not.toContain('as="fetch"')
    // A visitor is sent to sign in: nothing of billing, and no read that would answer 401.
    expect(answered(await headOf(app, '/billing/invoices'))).toEqual({})
    // Another remote's page does not read billing's data.
    expect(await headOf(app, '/auth/profile', signedIn)).not.toContain('/api/billing')
  })

  it('adds nothing on a page no remote owns, and no inline script the CSP would refuse', async () => {
    const { app } = createTestApp({
      registry: { remotes: [billingWithFiles] },
      deps: { assets: page },
    })
    for (const path of ['/', '/billingx', '/terms']) {
      expect(await headOf(app, path)).not.toContain('rel="modulepreload"')
    }
    const response = await app.request('/billing', { headers: { accept: 'text/html' } })
    expect(response.headers.get('content-security-policy')).toContain(
      "script-src 'self' https://cdn.example.com;",
    )
    expect((await response.text()).match(/<script/g)).toHaveLength(1)
  })

  it('never hints a remote for operators: a visitor at its address fetches none of its files', async () => {
    const console = {
      ...remoteEntry({
        name: 'console',
        basePath: '/console',
        entryUrl: 'https://cdn.example.com/console/1.0.0/assets/remoteEntry.js',
      }),
      audience: 'operators' as const,
    }
    const { app } = createTestApp({
      registry: { remotes: [billing, console] },
      deps: { assets: page },
    })
    const response = await app.request('/console/audit', { headers: { accept: 'text/html' } })
    const html = await response.text()
    expect(html).not.toContain('rel="modulepreload"')
    expect(html).not.toContain('/console/1.0.0/')
    // The CSP still allows its origin, so an operator's page can load it.
    expect(response.headers.get('content-security-policy')).toContain('https://cdn.example.com')
  })

  it('allows the page’s inline script by its hash in the page’s CSP', async () => {
    const script = "document.documentElement.dataset.theme = 'dark'"
    const withScript: HostAssets = {
      indexHtml: async () =>
        `<!doctype html><html><head><script>${script}</script></head><body></body></html>`,
      serve: async (_c: Context) => null,
    }
    const { app } = createTestApp({ registry: { remotes: [] }, deps: { assets: withScript } })
    const response = await app.request('/', { headers: { accept: 'text/html' } })
    const hash = createHash('sha256').update(script).digest('base64')
    expect(response.headers.get('content-security-policy')).toContain(
      `script-src 'self' 'sha256-${hash}';`,
    )
  })

  it('adds none to a page without the marker (a host that loads no remote code)', async () => {
    const { app } = createTestApp({ registry: { remotes: [billingWithFiles] }, deps: { assets } })
    expect(await headOf(app, '/billing')).not.toContain('modulepreload')
    const response = await app.request('/billing', { headers: { accept: 'text/html' } })
    expect(response.headers.get('link')).toBeNull()
    expect(withRouteHints('<head></head>', routeHints('/billing', { remotes: [billing] }))).toBe(
      '<head></head>',
    )
  })

  it('takes the marker out of a page with no remote to hint', async () => {
    const { app } = createTestApp({ registry: { remotes: [] }, deps: { assets: page } })
    const response = await app.request('/', { headers: { accept: 'text/html' } })
    expect(await response.text()).not.toContain('tessera:route-hints')
  })

  it('sends the hinted page gzipped as well', async () => {
    const { app } = createTestApp({
      registry: { remotes: [billingWithFiles] },
      deps: { assets: page },
    })
    const response = await app.request('/billing', {
      headers: { accept: 'text/html', 'accept-encoding': 'gzip' },
    })
    expect(response.headers.get('content-encoding')).toBe('gzip')
    const html = gunzipSync(new Uint8Array(await response.arrayBuffer())).toString()
    expect(html).toContain(`href="${cdn}/remoteEntry.js"`)
  })

  it('hints nothing for a remote on its canary here, which most viewers are not served', () => {
    const snapshot = { remotes: [{ ...billingWithFiles, channel: 'canary' as const }] }
    expect(routeHints('/billing', snapshot)).toEqual([])
    expect(
      routeHints('/billing', { remotes: [{ ...billingWithFiles, channel: 'stable' }] }),
    ).toHaveLength(3)
  })

  it('hints the pages’ lazy chunks (routePreload) after the first files, for a page visit only', () => {
    const remote = {
      ...billingWithFiles,
      routePreload: [`${cdn}/billing-routes-1.js`, `${cdn}/billing-routes-1.css`],
    }
    expect(routeHints('/billing/plans', { remotes: [remote] }).slice(-2)).toEqual([
      { rel: 'modulepreload', href: `${cdn}/billing-routes-1.js` },
      { rel: 'preload', href: `${cdn}/billing-routes-1.css`, cors: true },
    ])
    expect(routeHints('/assistant', { remotes: [remote] })).toEqual([])
  })

  it('hints each stylesheet in the CORS mode of the code that adds it, so it is fetched once', () => {
    const remote = {
      ...billing,
      preload: [`${cdn}/__federation_expose_Plugin-1.css`],
      routePreload: [`${cdn}/billing-routes-1.css`],
    }
    const head = withRouteHints(
      `<head>${ROUTE_HINTS_MARKER}</head>`,
      routeHints('/billing', { remotes: [remote] }),
    )
    // originjs adds the exposed module's as a plain link; Vite's preload helper, a route chunk's
    // with crossorigin="".
    expect(head).toContain(
      `<link rel="preload" as="style" href="${cdn}/__federation_expose_Plugin-1.css">`,
    )
    expect(head).toContain(
      `<link rel="preload" as="style" crossorigin href="${cdn}/billing-routes-1.css">`,
    )
  })

  it('takes only http(s) files on the entry’s origin, escaped', () => {
    const hints = routeHints('/billing', {
      remotes: [
        {
          ...billing,
          preload: [
            'https://elsewhere.example.com/x.js',
            `${cdn}/a.js?x="><script>`,
            `${cdn}/image.png`,
          ],
        },
      ],
    })
    expect(hints.map((hint) => hint.href)).toEqual([
      billing.entryUrl,
      `${cdn}/a.js?x=%22%3E%3Cscript%3E`,
    ])
    expect(
      withRouteHints(`<head>${ROUTE_HINTS_MARKER}</head>`, [
        { rel: 'preload', href: 'https://a.example/"<>&' },
      ]),
    ).toBe(
      '<head><link rel="preload" as="style" href="https://a.example/&quot;&lt;&gt;&amp;"></head>',
    )
    expect(
      routeHints('/billing', { remotes: [{ ...billing, entryUrl: 'javascript:alert(1)' }] }),
    ).toEqual([])
  })
})
