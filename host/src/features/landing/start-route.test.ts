import { describe, expect, it } from 'vitest'
import type { SessionState, SnapshotRemote } from '@tessera/contracts'
import { matchRoute } from '../../lib/router/match-route.ts'
import { startRouteFor } from './start-route.ts'

const remote = (name: string, basePath: string, order: number): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath,
  nav: { label: name, order },
  slots: [],
  previous: null,
})

const remotes = [remote('ai', '/assistant', 10), remote('auth', '/auth', 30)]
const signedOut: SessionState = { status: 'signed-out', user: null }
const loading: SessionState = { status: 'loading', user: null }
const signedIn: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.test', displayName: null },
}

const at = (pathname: string, session: SessionState, list = remotes) =>
  startRouteFor(matchRoute(pathname, list), pathname, session, list)

describe('startRouteFor', () => {
  it('shows a visitor who is not signed in the landing page at /', () => {
    expect(at('/', signedOut)).toEqual({ kind: 'landing' })
  })

  it('sends a signed-in user on from / to the first navigation item, the assistant', () => {
    expect(at('/', signedIn)).toEqual({ kind: 'redirect', to: '/assistant' })
  })

  it('shows neither while the session is read, so the landing never flashes by', () => {
    expect(at('/', loading)).toEqual({ kind: 'landing-pending' })
  })

  it('leaves every other path to matchRoute', () => {
    expect(at('/assistant', signedOut)).toMatchObject({ kind: 'remote' })
    expect(at('/terms', loading)).toEqual({ kind: 'host-page', page: 'terms' })
    expect(at('/nowhere', signedOut)).toEqual({ kind: 'not-found', pathname: '/nowhere' })
  })

  it('keeps / as it was when no remote owns the sign-in page: there is no way in to offer', () => {
    const withoutAuth = [remote('ai', '/assistant', 10)]
    expect(at('/', signedOut, withoutAuth)).toEqual({ kind: 'redirect', to: '/assistant' })
  })
})
