import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { OVERRIDE_COOKIE, OVERRIDE_VERSION } from './remote-overrides.ts'
import { createTestApp, csrfHeaders, remoteEntry, snapshotOf } from '../../testing/app.ts'

const registry = {
  remotes: [
    remoteEntry({ name: 'billing', version: '1.0.0' }),
    remoteEntry({ name: 'auth', basePath: '/auth', version: '1.0.0' }),
  ],
}

const devServer = 'http://localhost:5174/assets/remoteEntry.js'

/** The `name=value` of the overrides cookie a response sets ('' when it deletes it). */
function overridesCookie(response: Response): string | undefined {
  const header = response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${OVERRIDE_COOKIE}=`))
  return header?.split(';')[0]
}

async function setOverride(
  app: ReturnType<typeof createTestApp>['app'],
  body: Record<string, unknown>,
  cookie?: string,
) {
  return app.request('/api/remotes/overrides', {
    method: 'POST',
    headers: { ...csrfHeaders, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  })
}

describe('/api/remotes/overrides', () => {
  it('points one remote at a dev server for this browser only', async () => {
    const { app } = createTestApp({ registry })
    const response = await setOverride(app, { remote: 'billing', entryUrl: devServer })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      allowed: true,
      origins: ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'],
      overrides: [
        {
          remote: 'billing',
          entryUrl: devServer,
          label: 'local build',
          origin: 'http://localhost:5174',
          applied: true,
          problem: null,
        },
      ],
    })
    const setCookie = response.headers.getSetCookie().join('\n')
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Lax')
    expect(setCookie).toContain('Path=/')
    const cookie = overridesCookie(response)
    expect(cookie).toBeDefined()

    const mine = await snapshotOf(
      await app.request('/api/remotes', { headers: { cookie: cookie! } }),
    )
    expect(mine.remotes.find((remote) => remote.name === 'billing')).toMatchObject({
      version: OVERRIDE_VERSION,
      entryUrl: devServer,
      override: { label: 'local build' },
      previous: null,
    })
    expect(mine.remotes.find((remote) => remote.name === 'auth')?.override).toBeUndefined()

    const someoneElse = await snapshotOf(await app.request('/api/remotes'))
    expect(someoneElse.remotes.every((remote) => remote.override === undefined)).toBe(true)
  })

  it('replaces an earlier override of the same remote and keeps the others', async () => {
    const { app } = createTestApp({ registry })
    const first = await setOverride(app, { remote: 'billing', entryUrl: devServer })
    const second = await setOverride(
      app,
      { remote: 'auth', entryUrl: 'http://127.0.0.1:4173/assets/remoteEntry.js', label: 'PR 42' },
      overridesCookie(first),
    )
    const third = await setOverride(
      app,
      { remote: 'billing', entryUrl: 'http://localhost:5175/assets/remoteEntry.js' },
      overridesCookie(second),
    )
    const listing = (await third.json()) as { overrides: { remote: string; label: string }[] }
    expect(listing.overrides.map((o) => [o.remote, o.label])).toEqual([
      ['auth', 'PR 42'],
      ['billing', 'local build'],
    ])
  })

  it('ends one override, or all of them, with DELETE', async () => {
    const { app } = createTestApp({ registry })
    const first = await setOverride(app, { remote: 'billing', entryUrl: devServer })
    const both = await setOverride(
      app,
      { remote: 'auth', entryUrl: devServer.replace('5174', '5175') },
      overridesCookie(first),
    )
    const cookie = overridesCookie(both)!
    const one = await app.request('/api/remotes/overrides/billing', {
      method: 'DELETE',
      headers: { ...csrfHeaders, cookie },
    })
    expect(one.status).toBe(200)
    expect(
      ((await one.json()) as { overrides: { remote: string }[] }).overrides.map((o) => o.remote),
    ).toEqual(['auth'])

    const all = await app.request('/api/remotes/overrides', {
      method: 'DELETE',
      headers: { ...csrfHeaders, cookie },
    })
    expect(((await all.json()) as { overrides: unknown[] }).overrides).toEqual([])
    // The cookie is expired, so the browser forgets it.
    expect(all.headers.getSetCookie().join('\n')).toMatch(
      new RegExp(`${OVERRIDE_COOKIE}=;.*Max-Age=0`),
    )
  })

  it('refuses an origin the config does not allow, with a sentence', async () => {
    const { app } = createTestApp({ registry })
    const response = await setOverride(app, {
      remote: 'billing',
      entryUrl: 'https://evil.example.com/remoteEntry.js',
    })
    expect(response.status).toBe(422)
    const body = errorBodySchema.parse(await response.json())
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.message).toBe(
      'https://evil.example.com is not an origin overrides may load from here (allowed: http://localhost:*, http://127.0.0.1:*, http://[::1]:*). Ask the operator to add it to REMOTE_OVERRIDE_ORIGINS.',
    )
    expect(overridesCookie(response)).toBeUndefined()
  })

  it('refuses plain http away from loopback even when the origin is listed', async () => {
    const { app } = createTestApp({
      registry,
      env: { REMOTE_OVERRIDE_ORIGINS: 'https://*.preview.example.com' },
    })
    const response = await setOverride(app, {
      remote: 'billing',
      entryUrl: 'http://pr-1.preview.example.com/remoteEntry.js',
    })
    expect(response.status).toBe(422)
    expect(errorBodySchema.parse(await response.json()).error.message).toContain(
      'overrides load over https',
    )
    const https = await setOverride(app, {
      remote: 'billing',
      entryUrl: 'https://pr-1.preview.example.com/remoteEntry.js',
    })
    expect(https.status).toBe(200)
  })

  it('answers not_found for a remote the registry does not have', async () => {
    const { app } = createTestApp({ registry })
    const response = await setOverride(app, { remote: 'ai', entryUrl: devServer })
    expect(response.status).toBe(404)
    expect(errorBodySchema.parse(await response.json()).error.message).toBe(
      'There is no remote named ai here (the remotes are billing, auth).',
    )
  })

  it('answers forbidden where the server allows no overrides', async () => {
    const { app } = createTestApp({
      registry,
      env: { PUBLIC_ORIGIN: 'https://app.example.com', ALLOWED_ORIGINS: 'http://localhost:5173' },
    })
    const listing = await app.request('/api/remotes/overrides')
    expect(await listing.json()).toEqual({ allowed: false, origins: [], overrides: [] })
    const response = await setOverride(app, { remote: 'billing', entryUrl: devServer })
    expect(response.status).toBe(403)
    expect(errorBodySchema.parse(await response.json()).error.message).toContain(
      'This server does not allow overrides',
    )
  })

  it('validates the body and needs the CSRF header like every state change', async () => {
    const { app } = createTestApp({ registry })
    const invalid = await setOverride(app, { remote: 'billing', entryUrl: 'javascript:alert(1)' })
    expect(invalid.status).toBe(422)
    const extra = await setOverride(app, { remote: 'billing', entryUrl: devServer, x: 1 })
    expect(extra.status).toBe(422)
    const noCsrf = await app.request('/api/remotes/overrides', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:5173' },
      body: JSON.stringify({ remote: 'billing', entryUrl: devServer }),
    })
    expect(noCsrf.status).toBe(403)
    expect(errorBodySchema.parse(await noCsrf.json()).error.code).toBe('csrf_failed')
  })

  it('never lets the listing be cached', async () => {
    const { app } = createTestApp({ registry })
    const response = await app.request('/api/remotes/overrides')
    expect(response.headers.get('cache-control')).toBe('no-store')
  })
})

describe('odd requests', () => {
  it('answers every odd override request and cookie with 2xx or a catalogue error, never a 500', async () => {
    const { app } = createTestApp({ registry })
    const cookies = [
      '',
      `${OVERRIDE_COOKIE}=%ZZ`,
      `${OVERRIDE_COOKIE}=${'['.repeat(3000)}`,
      `${OVERRIDE_COOKIE}=${encodeURIComponent('[{"remote":"billing","entryUrl":"not a url","label":"x"}]')}`,
      `${OVERRIDE_COOKIE}=${encodeURIComponent('[{"remote":"billing","entryUrl":"javascript:alert(1)","label":"x"}]')}`,
      `${OVERRIDE_COOKIE}=a; ${OVERRIDE_COOKIE}=b`,
    ]
    const bodies = [
      undefined,
      '',
      '{',
      '[]',
      JSON.stringify({ remote: 'billing', entryUrl: devServer, label: '<script>' }),
      JSON.stringify({ remote: '../billing', entryUrl: devServer }),
      JSON.stringify({ remote: 'billing', entryUrl: `http://localhost:5174/${'a'.repeat(600)}` }),
    ]
    for (const path of [
      '/api/remotes',
      '/api/remotes/overrides',
      '/api/remotes/overrides/billing',
      '/api/remotes/overrides/Bad%20Name',
    ]) {
      for (const method of ['GET', 'POST', 'DELETE', 'PUT']) {
        for (const cookie of cookies) {
          for (const body of method === 'GET' ? [undefined] : bodies) {
            const response = await app.request(path, {
              method,
              headers: { ...csrfHeaders, ...(cookie ? { cookie } : {}) },
              ...(body === undefined ? {} : { body }),
            })
            const label = `${method} ${path} (${cookie.slice(0, 40)}) ${String(body).slice(0, 40)}`
            expect(response.status, label).not.toBe(500)
            if (response.status >= 400) {
              expect(errorBodySchema.safeParse(await response.json()).success, label).toBe(true)
            }
          }
        }
      }
    }
  })

  it('serves the snapshot, ignoring overrides, whatever the cookie holds', async () => {
    const { app } = createTestApp({ registry })
    for (const cookie of [`${OVERRIDE_COOKIE}=%ZZ`, `${OVERRIDE_COOKIE}={"a":1}`]) {
      const snapshot = await snapshotOf(await app.request('/api/remotes', { headers: { cookie } }))
      expect(snapshot.remotes.map((remote) => remote.version)).toEqual(['1.0.0', '1.0.0'])
    }
  })
})
