import {
  normalisePath,
  signInRemoteOf,
  type SessionState,
  type SnapshotRemote,
} from '@tessera/contracts'
import type { RouteMatch } from '../../lib/router/match-route.ts'

/** Where the landing page's "Start free" goes: the auth remote's sign-up form. */
export const SIGN_UP_PATH = '/auth/sign-up'

/**
 * What `/` shows to this visitor. Signed in, it is what `matchRoute` says (the home page of cards,
 * else the first navigation item: the assistant). Not signed in, it is the landing page, drawn by
 * the host with no remote's code; while the session is read, neither (so a signed-in user never
 * sees the landing flash by). Without a remote that owns the sign-in page there is no way to sign
 * up or in, so the landing has nothing to offer and `/` stays as `matchRoute` says.
 */
export function startRouteFor(
  match: RouteMatch,
  pathname: string,
  session: SessionState,
  remotes: readonly SnapshotRemote[],
): RouteMatch {
  if (normalisePath(pathname) !== '/' || session.status === 'signed-in') return match
  if (signInRemoteOf(remotes) === undefined) return match
  return session.status === 'loading' ? { kind: 'landing-pending' } : { kind: 'landing' }
}
