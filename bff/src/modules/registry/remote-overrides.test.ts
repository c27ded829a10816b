import type { RegistrySnapshot } from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../../http/app-env.ts'
import { remoteEntry } from '../../testing/app.ts'
import {
  OVERRIDE_COOKIE,
  OVERRIDE_VERSION,
  createRemoteOverrides,
  originAllowed,
} from './remote-overrides.ts'
import type { RemoteOverride, RemoteOverrides } from './remote-overrides.ts'

const snapshot: RegistrySnapshot = {
  generatedAt: '2026-01-01T00:00:00.000Z',
  remotes: [
    remoteEntry({
      name: 'billing',
      version: '1.0.0',
      entryUrl: 'http://localhost:8788/billing/1.0.0/assets/remoteEntry.js',
      preload: ['http://localhost:8788/billing/1.0.0/assets/plugin.js'],
      routePreload: ['http://localhost:8788/billing/1.0.0/assets/billing-routes.js'],
      previous: { version: '0.9.0', entryUrl: 'http://localhost:8788/billing/0.9.0/e.js' },
      channel: 'stable',
      slots: ['header.end'],
    }),
    remoteEntry({ name: 'auth', basePath: '/auth' }),
  ],
  diagnostics: [],
}

const loopback = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*']

type InRequest<T> = (overrides: RemoteOverrides, c: Context<AppEnv>) => T

/** Runs `fn` inside a request whose Cookie header is `cookie`, and returns what it returned. */
async function inRequest<T>(
  cookie: string,
  fn: InRequest<T>,
  origins: readonly string[] = loopback,
): Promise<T> {
  const overrides = createRemoteOverrides({ origins, secureCookies: false })
  let result: { value: T } | undefined
  const app = new Hono<AppEnv>().get('/', (c) => {
    result = { value: fn(overrides, c) }
    return c.text('ok')
  })
  await app.request('/', { headers: { cookie } })
  if (result === undefined) throw new Error('the request did not reach the handler')
  return result.value
}

/** `inRequest` with these overrides (or this raw text) in the overrides cookie. */
function withCookie<T>(
  overrides: readonly RemoteOverride[] | string,
  fn: InRequest<T>,
  origins: readonly string[] = loopback,
): Promise<T> {
  const cookie = typeof overrides === 'string' ? overrides : JSON.stringify(overrides)
  return inRequest(`${OVERRIDE_COOKIE}=${encodeURIComponent(cookie)}`, fn, origins)
}

describe('originAllowed', () => {
  const allowed = (patterns: string[], url: string) => originAllowed(patterns, new URL(url))

  it('matches any port for :* and only the given one otherwise', () => {
    expect(allowed(['http://localhost:*'], 'http://localhost:5174/x.js')).toBe(true)
    expect(allowed(['http://localhost:*'], 'http://localhost/x.js')).toBe(true)
    expect(allowed(['http://localhost:5174'], 'http://localhost:5175/x.js')).toBe(false)
    expect(allowed(['https://cdn.example.com'], 'https://cdn.example.com:443/x.js')).toBe(true)
    expect(allowed(['https://cdn.example.com:443'], 'https://cdn.example.com/x.js')).toBe(true)
  })

  it('matches subdomains for *. but not the bare domain or a look-alike', () => {
    const patterns = ['https://*.preview.example.com']
    expect(allowed(patterns, 'https://pr-42.preview.example.com/e.js')).toBe(true)
    expect(allowed(patterns, 'https://preview.example.com/e.js')).toBe(false)
    expect(allowed(patterns, 'https://evilpreview.example.com/e.js')).toBe(false)
  })

  it('never matches another protocol or host', () => {
    expect(allowed(['https://cdn.example.com'], 'http://cdn.example.com/x.js')).toBe(false)
    expect(allowed(['http://localhost:*'], 'http://127.0.0.1:5174/x.js')).toBe(false)
    expect(allowed([], 'http://localhost:5174/x.js')).toBe(false)
  })

  it('matches the IPv6 loopback', () => {
    expect(allowed(['http://[::1]:*'], 'http://[::1]:5174/x.js')).toBe(true)
  })
})

describe('createRemoteOverrides', () => {
  const billing = {
    remote: 'billing',
    entryUrl: 'http://localhost:5174/assets/remoteEntry.js',
    label: 'preview',
  }

  it('serves the override’s entry with the registry’s facts, no fallback, no preload hints', async () => {
    const result = await withCookie([billing], (overrides, c) => overrides.apply(c, snapshot))
    const entry = result.remotes.find((remote) => remote.name === 'billing')
    expect(entry).toEqual({
      name: 'billing',
      version: OVERRIDE_VERSION,
      entryUrl: 'http://localhost:5174/assets/remoteEntry.js',
      contract: 1,
      basePath: '/billing',
      nav: { label: 'billing', order: 1 },
      slots: ['header.end'],
      previous: null,
      override: { label: 'preview' },
    })
    expect(result.remotes.find((remote) => remote.name === 'auth')).toEqual(snapshot.remotes[1])
    expect(result.diagnostics).toEqual([])
  })

  it('returns the snapshot itself when the browser has no override', async () => {
    const result = await inRequest('', (overrides, c) => overrides.apply(c, snapshot))
    expect(result).toBe(snapshot)
  })

  it('leaves out an override the config no longer allows, and says why in the diagnostics', async () => {
    const result = await withCookie(
      [{ ...billing, entryUrl: 'https://preview.example.com/billing/assets/remoteEntry.js' }],
      (overrides, c) => overrides.apply(c, snapshot),
    )
    expect(result.remotes).toEqual(snapshot.remotes)
    expect(result.diagnostics).toEqual([
      {
        remote: 'billing',
        message: expect.stringContaining(
          'https://preview.example.com is not an origin overrides may load from here',
        ) as string,
      },
    ])
  })

  it('ignores every override, silently, where the server allows none', async () => {
    const result = await withCookie([billing], (overrides, c) => overrides.apply(c, snapshot), [])
    expect(result).toBe(snapshot)
  })

  it('ignores a cookie it cannot read', async () => {
    for (const cookie of ['not json', '{"remote":"billing"}', '[{"remote":"Billing!"}]']) {
      const result = await withCookie(cookie, (overrides, c) => overrides.apply(c, snapshot))
      expect(result).toBe(snapshot)
    }
  })

  it('explains, in a sentence each, why an override cannot apply', () => {
    const overrides = createRemoteOverrides({ origins: loopback, secureCookies: false })
    const problem = (entryUrl: string, remote = 'billing') =>
      overrides.problem({ remote, entryUrl }, snapshot)
    expect(problem('http://localhost:5174/e.js')).toBeNull()
    expect(problem('http://localhost:5174/e.js', 'ai')).toBe(
      'There is no remote named ai here (the remotes are billing, auth).',
    )
    expect(problem('http://dev.example.com/e.js')).toBe(
      'http://dev.example.com is not served over https: overrides load over https, or over http only from this computer (localhost).',
    )
    expect(problem('http://user:pw@localhost:5174/e.js')).toBe(
      'The entry URL must not carry a user name, password or #fragment.',
    )
    expect(problem('https://cdn.example.com/e.js')).toContain(
      'Ask the operator to add it to REMOTE_OVERRIDE_ORIGINS.',
    )
  })

  it('labels an override by where it loads from when no label is given', () => {
    const overrides = createRemoteOverrides({ origins: loopback, secureCookies: false })
    expect(overrides.defaultLabel('http://127.0.0.1:4173/assets/remoteEntry.js')).toBe(
      'local build',
    )
    expect(overrides.defaultLabel('https://pr-1.preview.example.com/e.js')).toBe('preview')
  })
})
