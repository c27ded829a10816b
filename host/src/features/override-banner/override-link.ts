/**
 * Preview links: `?tessera-override=<remote>&tessera-override-url=<entry URL>` (and optionally
 * `&tessera-override-label=<label>`) on any page of the app asks this browser to load one remote
 * from elsewhere. The host only asks: nothing changes until the person confirms, so a link alone
 * can never swap the code a browser runs.
 */
export const OVERRIDE_PARAM = 'tessera-override'
export const OVERRIDE_URL_PARAM = 'tessera-override-url'
export const OVERRIDE_LABEL_PARAM = 'tessera-override-label'

const params = [OVERRIDE_PARAM, OVERRIDE_URL_PARAM, OVERRIDE_LABEL_PARAM]

/** What a preview link asks for. */
export interface OverrideRequest {
  remote: string
  entryUrl: string
  label?: string
}

/** The override a page's query asks for; null when it asks for none (or only half of one). */
export function overrideRequestFrom(search: string): OverrideRequest | null {
  const query = new URLSearchParams(search)
  const remote = query.get(OVERRIDE_PARAM)?.trim()
  const entryUrl = query.get(OVERRIDE_URL_PARAM)?.trim()
  if (!remote || !entryUrl) return null
  const label = query.get(OVERRIDE_LABEL_PARAM)?.trim()
  return { remote, entryUrl, ...(label ? { label } : {}) }
}

/** The query without the preview-link parameters ('' when nothing else is left). */
export function searchWithoutOverride(search: string): string {
  const query = new URLSearchParams(search)
  for (const param of params) query.delete(param)
  const rest = query.toString()
  return rest === '' ? '' : `?${rest}`
}

/** A preview link to `path` of the app at `appUrl` (what CI or a teammate shares). */
export function overrideLink(appUrl: string, path: string, request: OverrideRequest): string {
  const url = new URL(path, appUrl)
  url.searchParams.set(OVERRIDE_PARAM, request.remote)
  url.searchParams.set(OVERRIDE_URL_PARAM, request.entryUrl)
  if (request.label) url.searchParams.set(OVERRIDE_LABEL_PARAM, request.label)
  return url.toString()
}

/** The origin people see for an entry URL (the whole text if it is not a URL). */
export function originOf(entryUrl: string): string {
  return URL.canParse(entryUrl) ? new URL(entryUrl).origin : entryUrl
}
