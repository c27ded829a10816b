import { normalisePath, remoteOwning, subPathOf } from '@tessera/contracts'
import type { RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'

/** Pages the host draws itself, open to everyone, at fixed paths no remote can take. */
export const hostPages = { '/terms': 'terms', '/privacy': 'privacy' } as const
export type HostPage = (typeof hostPages)[keyof typeof hostPages]

export type RouteMatch =
  | { kind: 'remote'; remote: SnapshotRemote; subPath: string }
  | { kind: 'redirect'; to: string }
  /** `/` when a plugin fills `home.card`: the host's home page of cards. */
  | { kind: 'home' }
  /**
   * `/` for a visitor who is not signed in, and `/` while the session is still being read: the
   * frame decides these from the session (features/landing), never `matchRoute`.
   */
  | { kind: 'landing' }
  | { kind: 'landing-pending' }
  /** `/terms` and `/privacy`. */
  | { kind: 'host-page'; page: HostPage }
  | { kind: 'not-found'; pathname: string }
  /** A path under a remote this user may not open (the snapshot's `restricted`). */
  | { kind: 'not-allowed'; pathname: string; remote: string }
  | { kind: 'empty' }

/** The remotes that appear in the navigation, in the order their teams asked for. */
export function navRemotes(remotes: readonly SnapshotRemote[]): SnapshotRemote[] {
  return remotes
    .filter((remote) => remote.nav !== null)
    .sort((a, b) => (a.nav?.order ?? 0) - (b.nav?.order ?? 0) || a.name.localeCompare(b.name))
}

/** A remote that exists but is not for this user: its name and base path, never a URL. */
export type RestrictedRemote = NonNullable<RegistrySnapshot['restricted']>[number]

/**
 * Which remote owns a path. `/` is the home page when a plugin fills `home.card`, else it goes to
 * the first navigation item (for a signed-in user: visitors get the landing page, see
 * features/landing); the host's own pages come before any remote; a path under a restricted
 * remote's base path is a not-allowed page, and a path no remote owns a not-found page, both inside
 * the frame.
 */
export function matchRoute(
  pathname: string,
  remotes: readonly SnapshotRemote[],
  restricted: readonly RestrictedRemote[] = [],
): RouteMatch {
  const path = normalisePath(pathname)
  if (path === '/') {
    if (remotes.some((remote) => remote.slots.includes('home.card'))) return { kind: 'home' }
    const first = navRemotes(remotes)[0]
    return first ? { kind: 'redirect', to: first.basePath } : { kind: 'empty' }
  }
  const hostPage = Object.entries(hostPages).find(([at]) => at === path)?.[1]
  if (hostPage !== undefined) return { kind: 'host-page', page: hostPage }
  for (const remote of remotes) {
    const subPath = subPathOf(path, remote.basePath)
    if (subPath !== null) return { kind: 'remote', remote, subPath }
  }
  const denied = remoteOwning(path, restricted)
  if (denied) return { kind: 'not-allowed', pathname: path, remote: denied.name }
  return { kind: 'not-found', pathname: path }
}
