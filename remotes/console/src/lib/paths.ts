/** The console's pages, as app paths (the remote is mounted at `/console`). */
export const consolePaths = {
  remotes: '/console',
  remote: (name: string) => `/console/remotes/${encodeURIComponent(name)}`,
  audit: '/console/audit',
  tokens: '/console/tokens',
  operators: '/console/operators',
  health: '/console/health',
} as const

/** Pages of other remotes this one links to. */
export const otherPaths = { signIn: '/auth/sign-in' } as const

/** An app path carrying `next` along (`/auth/sign-in?next=%2Fconsole`). */
export function withNext(path: string, next: string): string {
  return `${path}?${new URLSearchParams({ next }).toString()}`
}

/** The remote a route names (`/remotes/billing` → `billing`), or null for another route. */
export function remoteOfRoute(route: string): string | null {
  const match = /^\/remotes\/([a-z][a-z0-9-]{1,31})\/?$/.exec(route)
  return match?.[1] ?? null
}
