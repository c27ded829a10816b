import type { SnapshotRemote } from '@tessera/contracts'
import { normalisePath } from './router.ts'

export type RouteMatch =
  | { kind: 'remote'; remote: SnapshotRemote; subPath: string }
  | { kind: 'redirect'; to: string }
  /** `/` when a plugin fills `home.card`: the host's home page of cards. */
  | { kind: 'home' }
  | { kind: 'not-found'; pathname: string }
  | { kind: 'empty' }

/** The remotes that appear in the navigation, in the order their teams asked for. */
export function navRemotes(remotes: readonly SnapshotRemote[]): SnapshotRemote[] {
  return remotes
    .filter((remote) => remote.nav !== null)
    .sort((a, b) => (a.nav?.order ?? 0) - (b.nav?.order ?? 0) || a.name.localeCompare(b.name))
}

/** The path below a base path, starting with `/`: `/billing/plans` under `/billing` is `/plans`. */
export function subPathOf(pathname: string, basePath: string): string | null {
  const path = normalisePath(pathname)
  if (path === basePath) return '/'
  if (path.startsWith(`${basePath}/`)) return path.slice(basePath.length)
  return null
}

/**
 * Which remote owns a path. `/` is the home page when a plugin fills `home.card`, else it goes to
 * the first navigation item; a path no remote owns is a not-found page inside the frame.
 */
export function matchRoute(pathname: string, remotes: readonly SnapshotRemote[]): RouteMatch {
  const path = normalisePath(pathname)
  if (path === '/') {
    if (remotes.some((remote) => remote.slots.includes('home.card'))) return { kind: 'home' }
    const first = navRemotes(remotes)[0]
    return first ? { kind: 'redirect', to: first.basePath } : { kind: 'empty' }
  }
  for (const remote of remotes) {
    const subPath = subPathOf(path, remote.basePath)
    if (subPath !== null) return { kind: 'remote', remote, subPath }
  }
  return { kind: 'not-found', pathname: path }
}
