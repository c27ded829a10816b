import { signInRemoteOf, type RegistrySnapshot, type SnapshotRemote } from '@tessera/contracts'
import { startRouteFor } from '../features/landing/start-route.ts'
import { guardRoute } from '../features/session/route-guard.ts'
import { matchRoute } from '../lib/router/match-route.ts'
import type { Kernel } from './kernel.ts'

type StartKernel = Pick<Kernel, 'router' | 'remotes' | 'session'>

/**
 * Starts loading the remote of the first page as soon as the frame with its navigation is drawn,
 * before the outlets' effects run; the outlet then shares this load. The header slots are not
 * started here: they wait for the page (load-order.ts), or go at once when no remote owns it.
 * Nothing else is fetched: a remote's code still loads only when its route or slot is shown.
 * At `/` the session decides: a visitor's landing page has no remote, a signed-in user's `/` goes
 * on to the first navigation item, and while the session is read nothing starts (the frame starts
 * whichever it turns out to be). A page that needs a signed-in user waits for the session too, then
 * loads its remote for one and the sign-in page's remote for a visitor, who is sent there (a
 * visitor who opened `/billing` downloaded billing's code only to be shown the sign-in form).
 */
export function startShownRemotes(kernel: StartKernel, snapshot: RegistrySnapshot): void {
  const location = kernel.router.current()
  const session = kernel.session.current()
  const match = startRouteFor(
    matchRoute(location.pathname, snapshot.remotes),
    location.pathname,
    session,
    snapshot.remotes,
  )
  // The landing page releases the slots itself once its text is painted (landing-page.tsx); while
  // the session is read, the page it turns out to be starts itself once it is shown.
  if (match.kind === 'landing' || match.kind === 'landing-pending') return
  let routed: SnapshotRemote | undefined
  if (match.kind === 'remote') {
    const guard = guardRoute(match, location, session, snapshot.remotes)
    if (guard.kind === 'wait') return whenSessionRead(kernel, snapshot)
    routed = guard.kind === 'pass' ? match.remote : signInRemoteOf(snapshot.remotes)
  } else if (match.kind === 'redirect') {
    routed = snapshot.remotes.find((remote) => remote.basePath === match.to)
  }
  if (routed) void kernel.remotes.loader.load(routed)
  else kernel.remotes.loadOrder.releaseSlots()
}

/** Starts what the page shows once the session has been read (at most once). */
function whenSessionRead(kernel: StartKernel, snapshot: RegistrySnapshot): void {
  const stop = kernel.session.subscribe((state) => {
    if (state.status === 'loading') return
    stop()
    startShownRemotes(kernel, snapshot)
  })
}
