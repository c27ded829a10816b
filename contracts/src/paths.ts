import { SIGN_IN_PATH } from './platform.ts'

// Which remote owns a path, and which pages a visitor who has not signed in may see: one rule for
// the host's route guard and for the BFF, which hints the files of the page a visitor will get.

/** What the rule needs of a remote (a snapshot's remote has it). */
export interface RoutedRemote {
  name: string
  basePath: string
  /** Paths below the base path open to visitors (billing's `/plans`). */
  publicPaths?: readonly string[]
}

/** Removes a trailing slash (`/billing/` → `/billing`) so each page has one address. */
export function normalisePath(pathname: string): string {
  const collapsed = pathname.replace(/\/{2,}/g, '/')
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed || '/'
}

/** The path below a base path, starting with `/`: `/billing/plans` under `/billing` is `/plans`. */
export function subPathOf(pathname: string, basePath: string): string | null {
  const path = normalisePath(pathname)
  if (path === basePath) return '/'
  if (path.startsWith(`${basePath}/`)) return path.slice(basePath.length)
  return null
}

/** The remote whose base path holds `pathname`. */
export function remoteOwning<R extends RoutedRemote>(
  pathname: string,
  remotes: readonly R[],
): R | undefined {
  return remotes.find((remote) => subPathOf(pathname, remote.basePath) !== null)
}

/** The remote that owns the sign-in page, where a visitor is sent. */
export function signInRemoteOf<R extends RoutedRemote>(
  remotes: readonly R[],
  signInPath = SIGN_IN_PATH,
): R | undefined {
  return remoteOwning(signInPath, remotes)
}

/**
 * Whether a visitor who has not signed in may see `remote`'s page at `pathname`. Every remote's
 * pages need a signed-in user except those of the remote that owns the sign-in page (it holds
 * sign-up, password reset and email links too) and the pages a remote declares public
 * (`publicPaths`). With no remote owning the sign-in page there is nowhere to send anyone, so
 * every page is open.
 */
export function openToVisitors(
  remote: RoutedRemote,
  pathname: string,
  remotes: readonly RoutedRemote[],
  signInPath = SIGN_IN_PATH,
): boolean {
  const signInRemote = signInRemoteOf(remotes, signInPath)
  if (signInRemote === undefined || signInRemote.name === remote.name) return true
  const sub = subPathOf(pathname, remote.basePath)
  return sub !== null && (remote.publicPaths?.includes(sub) ?? false)
}
