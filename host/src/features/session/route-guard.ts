import { SIGN_IN_PATH } from '@tessera/contracts'
import type { SessionState, SnapshotRemote } from '@tessera/contracts'
import type { RouteMatch } from '../../lib/router/match-route.ts'
import { subPathOf } from '../../lib/router/match-route.ts'
import type { Location } from '../../lib/router/router.ts'

export type GuardDecision =
  | { kind: 'pass' }
  /** The session is still being read: show the frame, not the page and not the sign-in page. */
  | { kind: 'wait' }
  | { kind: 'redirect'; to: string }

/** The app path to come back to after signing in: the whole address, not just the path. */
export function returnPathOf(location: Location): string {
  return `${location.pathname}${location.search}${location.hash}`
}

/** `/auth/sign-in?next=/billing%3Ftab%3Dinvoices`: the sign-in page reads `next`. */
export function signInPathFor(location: Location, signInPath = SIGN_IN_PATH): string {
  return `${signInPath}?${new URLSearchParams({ next: returnPathOf(location) }).toString()}`
}

/**
 * Whether a signed-out visitor may see a page. Every remote's pages need a signed-in user except
 * the remote that owns the sign-in page (it holds sign-up, password reset and email links too)
 * and the pages a remote declares public (`publicPaths`, such as billing's `/plans`).
 * With no remote owning the sign-in page there is nowhere to send anyone, so nothing is guarded.
 */
export function guardRoute(
  match: RouteMatch,
  location: Location,
  session: SessionState,
  remotes: readonly SnapshotRemote[],
  signInPath = SIGN_IN_PATH,
): GuardDecision {
  if (match.kind !== 'remote') return { kind: 'pass' }
  const signInRemote = signInRemoteOf(remotes, signInPath)
  if (!signInRemote || signInRemote.name === match.remote.name) return { kind: 'pass' }
  if (isPublicPath(match.remote, location.pathname)) return { kind: 'pass' }
  if (session.status === 'signed-in') return { kind: 'pass' }
  if (session.status === 'loading') return { kind: 'wait' }
  return { kind: 'redirect', to: signInPathFor(location, signInPath) }
}

/** The remote that owns the sign-in page, where a visitor is sent. */
export function signInRemoteOf(
  remotes: readonly SnapshotRemote[],
  signInPath = SIGN_IN_PATH,
): SnapshotRemote | undefined {
  return remotes.find((remote) => subPathOf(signInPath, remote.basePath) !== null)
}

/** Whether `pathname` is one of the remote's public pages (`subPathOf` normalises it). */
function isPublicPath(remote: SnapshotRemote, pathname: string): boolean {
  const sub = subPathOf(pathname, remote.basePath)
  return sub !== null && (remote.publicPaths?.includes(sub) ?? false)
}
