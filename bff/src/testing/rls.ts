import type { Sql } from '@tessera/db/sql'
import { withUser } from '../platform/db/with-user.ts'
import type { UserClaims } from '../platform/db/with-user.ts'

/** The claims of a signed-in user, as the BFF hands them to `withUser`. */
export const userClaims = (sub: string): UserClaims => ({
  sub,
  role: 'authenticated',
  aud: 'authenticated',
})

/** What runs in the viewer's transaction. */
export type AsViewerWork<T> = Parameters<typeof withUser<T>>[2]

/**
 * Runs `fn` in a transaction as a viewer under row level security: a user (by id, through
 * `withUser`), or `anon`, a visitor with no user at all. For the RLS tests of each table.
 */
export function asViewer<T>(sql: Sql, viewer: string, fn: AsViewerWork<T>): Promise<T> {
  if (viewer !== 'anon') return withUser(sql, userClaims(viewer), fn)
  return sql.transaction(fn, {
    opening: {
      text: `select set_config('role', 'anon', true), set_config('request.jwt.claims', '{"role":"anon"}', true)`,
      params: [],
    },
  })
}
