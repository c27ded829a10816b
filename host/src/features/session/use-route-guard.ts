import { useEffect, useMemo, useSyncExternalStore } from 'react'
import type { PlatformSession, SnapshotRemote } from '@tessera/contracts'
import type { RouteMatch } from '../../lib/router/match-route.ts'
import type { Location, Router } from '../../lib/router/router.ts'
import { guardRoute, type GuardDecision } from './route-guard.ts'

/**
 * Guards the routed page: sends a signed-out visitor to sign in (replacing the history entry, so
 * Back does not bounce them to the guard again) and says when to wait for the session.
 */
export function useRouteGuard(
  router: Router,
  session: PlatformSession,
  location: Location,
  match: RouteMatch,
  remotes: readonly SnapshotRemote[],
): GuardDecision {
  const state = useSyncExternalStore(session.subscribe, session.current)
  const decision = useMemo(
    () => guardRoute(match, location, state, remotes),
    [match, location, state, remotes],
  )
  useEffect(() => {
    if (decision.kind === 'redirect') router.navigate(decision.to, { replace: true })
  }, [decision, router])
  return decision
}
