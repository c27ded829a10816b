/** Paths that must not be a destination after signing in: the API, and pages that would loop. */
const refused = [/^\/api(\/|$)/, /^\/auth\/confirm(\/|$)/, /^\/auth\/sign-in(\/|$)/]

// The contracts' nextPathSchema rule: an app path in printable ASCII, never `//host` or `/\host`.
const appPath = /^\/(?![/\\])[\x21-\x7e]*$/

/**
 * Where to go after signing in or following an email link, from a `next` parameter: a path of
 * this app (`/billing?tab=invoices`) or a full URL on this origin (email links carry one). Anything
 * else — another site, `javascript:`, the API — is refused, and the caller uses its default.
 */
export function safeNextPath(raw: string | null | undefined, origin: string): string | null {
  if (raw === null || raw === undefined || raw === '' || raw.length > 2048) return null
  // Printable ASCII only: URL parsing would drop surrounding spaces and tabs, hiding a trick.
  if (/[^\x21-\x7e]/.test(raw)) return null
  // A relative path must start with exactly one slash; a URL must be on this origin.
  if (raw.startsWith('/') && !appPath.test(raw)) return null
  if (!URL.canParse(raw, origin)) return null
  const url = new URL(raw, origin)
  if (url.origin !== origin) return null
  const path = `${url.pathname}${url.search}${url.hash}`
  if (path.length > 512 || !appPath.test(path)) return null
  if (url.pathname === '/' && url.search === '' && url.hash === '') return null
  if (refused.some((pattern) => pattern.test(url.pathname))) return null
  return path
}

/** The `next` query parameter of the current address, checked. */
export function nextFromLocation(location: Pick<Location, 'search' | 'origin'>): string | null {
  return safeNextPath(new URLSearchParams(location.search).get('next'), location.origin)
}

/** An auth page path carrying `next` along (`/auth/sign-up?next=%2Fbilling`). */
export function withNext(path: string, next: string | null): string {
  return next === null ? path : `${path}?${new URLSearchParams({ next }).toString()}`
}
