import type { RegistrySnapshot } from '@tessera/contracts'
import { startRouteFor } from '../features/landing/start-route.ts'
import { matchRoute } from '../lib/router/match-route.ts'
import type { Kernel } from './kernel.ts'

/**
 * Starts loading the remote of the first page as soon as the frame with its navigation is drawn,
 * before the outlets' effects run; the outlet then shares this load. The header slots are not
 * started here: they wait for the page (load-order.ts), or go at once when no remote owns it.
 * Nothing else is fetched: a remote's code still loads only when its route or slot is shown.
 * At `/` the session decides: a visitor's landing page has no remote, a signed-in user's `/` goes
 * on to the first navigation item, and while the session is read nothing starts (the frame starts
 * whichever it turns out to be).
 */
export function startShownRemotes(
  kernel: Pick<Kernel, 'router' | 'remotes' | 'session'>,
  snapshot: RegistrySnapshot,
): void {
  const { pathname } = kernel.router.current()
  const match = startRouteFor(
    matchRoute(pathname, snapshot.remotes),
    pathname,
    kernel.session.current(),
    snapshot.remotes,
  )
  if (match.kind === 'landing-pending') return
  const routed =
    match.kind === 'remote'
      ? match.remote
      : match.kind === 'redirect'
        ? snapshot.remotes.find((remote) => remote.basePath === match.to)
        : undefined
  if (routed) void kernel.remotes.loader.load(routed)
  else kernel.remotes.loadOrder.releaseSlots()
}
