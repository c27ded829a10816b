import { describe, expect, it } from 'vitest'
import type { SnapshotRemote } from '@tessera/contracts'
import { matchRoute, navRemotes } from './match-route.ts'

const remote = (name: string, basePath: string, order: number | null): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath,
  nav: order === null ? null : { label: name, order },
  slots: [],
  previous: null,
})

const remotes = [
  remote('billing', '/billing', 20),
  remote('auth', '/auth', 30),
  remote('ai', '/assistant', 10),
]

describe('matchRoute', () => {
  it('redirects / to the first navigation item', () => {
    expect(matchRoute('/', remotes)).toEqual({ kind: 'redirect', to: '/assistant' })
  })

  it('gives a path to the remote whose base path owns it, with the path below it', () => {
    expect(matchRoute('/billing/plans/pro', remotes)).toMatchObject({
      kind: 'remote',
      remote: { name: 'billing' },
      subPath: '/plans/pro',
    })
    expect(matchRoute('/billing/', remotes)).toMatchObject({ kind: 'remote', subPath: '/' })
  })

  it('gives /terms and /privacy to the host, even over a remote that claims the same path', () => {
    expect(matchRoute('/terms', remotes)).toEqual({ kind: 'host-page', page: 'terms' })
    expect(matchRoute('/privacy/', remotes)).toEqual({ kind: 'host-page', page: 'privacy' })
    expect(matchRoute('/privacy', [...remotes, remote('privacy', '/privacy', 50)])).toEqual({
      kind: 'host-page',
      page: 'privacy',
    })
    expect(matchRoute('/terms/old', remotes)).toEqual({ kind: 'not-found', pathname: '/terms/old' })
  })

  it('does not let a base path own a longer segment that merely starts with it', () => {
    expect(matchRoute('/billingx', remotes)).toEqual({ kind: 'not-found', pathname: '/billingx' })
  })

  it('answers a path under a restricted remote with not-allowed, and others still with not-found', () => {
    const restricted = [{ name: 'console', basePath: '/console' }]
    expect(matchRoute('/console', remotes, restricted)).toEqual({
      kind: 'not-allowed',
      pathname: '/console',
      remote: 'console',
    })
    expect(matchRoute('/console/remotes/billing', remotes, restricted)).toMatchObject({
      kind: 'not-allowed',
    })
    expect(matchRoute('/consoles', remotes, restricted)).toEqual({
      kind: 'not-found',
      pathname: '/consoles',
    })
    expect(matchRoute('/billing', remotes, restricted)).toMatchObject({ kind: 'remote' })
  })

  it('reports an empty app when no remote is in the navigation', () => {
    expect(matchRoute('/', [remote('auth', '/auth', null)])).toEqual({ kind: 'empty' })
  })
})

describe('navRemotes', () => {
  it('orders by nav.order and leaves out remotes without a nav entry', () => {
    const names = navRemotes([...remotes, remote('hidden', '/hidden', null)]).map((r) => r.name)
    expect(names).toEqual(['ai', 'billing', 'auth'])
  })
})
