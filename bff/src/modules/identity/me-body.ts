import type { Entitlements, SignedIn, UserRole } from '@tessera/contracts'
import type { Context, TypedResponse } from 'hono'
import type { JSONParsed } from 'hono/utils/types'
import type { ProfileRow } from '../../platform/db/schema.ts'
import { signedInBody } from './identity.ts'
import type { ActiveSession } from './sessions.ts'

/** What `GET /api/me` answers a signed-in session from, each read from its own cache. */
export interface MeParts {
  session: ActiveSession
  profile: ProfileRow
  entitlements: Entitlements
  roles: readonly UserRole[]
  workspace: SignedIn['workspace']
}

interface Written extends Omit<MeParts, 'session'> {
  json: string
}

const sameRoles = (a: readonly UserRole[], b: readonly UserRole[]) =>
  a.length === b.length && a.every((role, i) => role === b[i])

/**
 * `GET /api/me`'s body as JSON text, written again only when one of its parts changed. Every part
 * comes from a cache that replaces a value rather than editing it (sessions, profiles, the
 * session's workspace and entitlements), so the same objects mean the same answer: a session asking
 * again within its caches' lifetime gets the text written last time, and any change (a new
 * profile row, a plan, a switch of workspace, a refreshed session) writes it again. Roles are
 * read anew each time, so they are compared by value.
 */
export function createMeBodies() {
  // Keyed by the session object: the entry goes when the sessions cache lets the session go.
  const written = new WeakMap<ActiveSession, Written>()
  return function meBody(parts: MeParts): string {
    const last = written.get(parts.session)
    if (
      last !== undefined &&
      last.profile === parts.profile &&
      last.entitlements === parts.entitlements &&
      last.workspace === parts.workspace &&
      sameRoles(last.roles, parts.roles)
    )
      return last.json
    const body: SignedIn = {
      ...signedInBody(parts.session, parts.profile, parts.entitlements),
      roles: [...parts.roles],
      ...(parts.workspace === undefined ? {} : { workspace: parts.workspace }),
    }
    const json = JSON.stringify(body)
    written.set(parts.session, {
      profile: parts.profile,
      entitlements: parts.entitlements,
      roles: parts.roles,
      workspace: parts.workspace,
      json,
    })
    return json
  }
}

/**
 * Sends text `meBody` wrote as `c.json(body, 200)` would send that body: the same bytes and
 * Content-Type, and the same type for the typed client (`AppType`), which only `c.json` infers.
 */
export function sendMeBody(
  c: Context,
  json: string,
): Response & TypedResponse<JSONParsed<SignedIn>, 200, 'json'> {
  const response = c.body(json, 200, { 'Content-Type': 'application/json' })
  return response as unknown as Response & TypedResponse<JSONParsed<SignedIn>, 200, 'json'>
}
