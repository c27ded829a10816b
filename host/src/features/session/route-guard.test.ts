import { describe, expect, it } from 'vitest'
import type { SessionState, SnapshotRemote } from '@tessera/contracts'
import { matchRoute } from '../../lib/router/match-route.ts'
import type { Location } from '../../lib/router/router.ts'
import { guardRoute, signInPathFor } from './route-guard.ts'

const remote = (name: string, basePath: string): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath,
  nav: { label: name, order: 1 },
  slots: [],
  previous: null,
})

const remotes = [remote('ai', '/assistant'), remote('billing', '/billing'), remote('auth', '/auth')]
const at = (pathname: string, search = '', hash = ''): Location => ({ pathname, search, hash })
const signedOut: SessionState = { status: 'signed-out', user: null }
const loading: SessionState = { status: 'loading', user: null }
const signedIn: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.test', displayName: null },
}

function decide(location: Location, session: SessionState, list = remotes) {
  return guardRoute(matchRoute(location.pathname, list), location, session, list)
}

describe('guardRoute', () => {
  it('sends a signed-out visitor of a remote page to sign in, with the page as next', () => {
    expect(decide(at('/billing'), signedOut)).toEqual({
      kind: 'redirect',
      to: '/auth/sign-in?next=%2Fbilling',
    })
    const deep = decide(at('/assistant/chats/7', '?q=a', '#end'), signedOut)
    if (deep.kind !== 'redirect') throw new Error(`expected a redirect, got ${deep.kind}`)
    const url = new URL(deep.to, 'http://app.test')
    expect(url.pathname).toBe('/auth/sign-in')
    expect(url.searchParams.get('next')).toBe('/assistant/chats/7?q=a#end')
  })

  it('lets a signed-in visitor through', () => {
    expect(decide(at('/billing'), signedIn)).toEqual({ kind: 'pass' })
  })

  it('waits while the session is being read', () => {
    expect(decide(at('/assistant'), loading)).toEqual({ kind: 'wait' })
  })

  it('never guards the pages of the remote that owns sign-in', () => {
    expect(decide(at('/auth/sign-in'), signedOut)).toEqual({ kind: 'pass' })
    expect(decide(at('/auth/confirm', '?token_hash=x&type=signup'), loading)).toEqual({
      kind: 'pass',
    })
  })

  it('lets a signed-out visitor open the pages a remote declares public, and only those', () => {
    const withPricing = remotes.map((entry) =>
      entry.name === 'billing' ? { ...entry, publicPaths: ['/plans'] } : entry,
    )
    expect(decide(at('/billing/plans'), signedOut, withPricing)).toEqual({ kind: 'pass' })
    expect(decide(at('/billing/plans/'), signedOut, withPricing)).toEqual({ kind: 'pass' })
    expect(decide(at('/billing'), signedOut, withPricing)).toMatchObject({ kind: 'redirect' })
    expect(decide(at('/billing/plans-old'), signedOut, withPricing)).toMatchObject({
      kind: 'redirect',
    })
    expect(decide(at('/assistant/plans'), signedOut, withPricing)).toMatchObject({
      kind: 'redirect',
    })
  })

  it('leaves paths no remote owns to the not-found page', () => {
    expect(decide(at('/nowhere'), signedOut)).toEqual({ kind: 'pass' })
  })

  it('guards nothing when no remote owns the sign-in page', () => {
    const withoutAuth = remotes.filter((candidate) => candidate.name !== 'auth')
    expect(decide(at('/billing'), signedOut, withoutAuth)).toEqual({ kind: 'pass' })
  })
})

describe('signInPathFor', () => {
  it('carries the whole address, query included, back to the sign-in page', () => {
    const to = signInPathFor(at('/billing/invoices', '?page=2'))
    expect(new URL(to, 'http://app.test').searchParams.get('next')).toBe('/billing/invoices?page=2')
  })
})
