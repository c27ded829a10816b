import { openToVisitors, SIGN_IN_PATH } from '@tessera/contracts'
import type { SessionState, SnapshotRemote } from '@tessera/contracts'
import type { RouteMatch } from '../../lib/router/match-route.ts'
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
 * Whether a signed-out visitor may see a page: the contracts' `openToVisitors` (the BFF hints the
 * files of the page it gives), and while the session is being read, neither page yet.
 */
export function guardRoute(
  match: RouteMatch,
  location: Location,
  session: SessionState,
  remotes: readonly SnapshotRemote[],
  signInPath = SIGN_IN_PATH,
): GuardDecision {
  if (match.kind !== 'remote') return { kind: 'pass' }
  if (openToVisitors(match.remote, location.pathname, remotes, signInPath)) return { kind: 'pass' }
  if (session.status === 'signed-in') return { kind: 'pass' }
  if (session.status === 'loading') return { kind: 'wait' }
  return { kind: 'redirect', to: signInPathFor(location, signInPath) }
}
