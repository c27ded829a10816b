import type { RegistrySnapshot } from '@tessera/contracts'
import { matchRoute } from '../lib/router/match-route.ts'
import type { Kernel } from './kernel.ts'

/**
 * Starts loading the remotes the first page will show (its route and the header slots) as soon as
 * the snapshot is in, before React renders; the outlets then share these loads. Nothing else is
 * fetched: a remote's code still loads only when its route or slot is shown.
 */
export function startShownRemotes(
  kernel: Pick<Kernel, 'router' | 'remotes'>,
  snapshot: RegistrySnapshot,
): void {
  const match = matchRoute(kernel.router.current().pathname, snapshot.remotes)
  const routed =
    match.kind === 'remote'
      ? match.remote
      : match.kind === 'redirect'
        ? snapshot.remotes.find((remote) => remote.basePath === match.to)
        : undefined
  const shown = snapshot.remotes.filter(
    (remote) => remote === routed || remote.slots.includes('header.end'),
  )
  for (const remote of shown) void kernel.remotes.loader.load(remote)
}
