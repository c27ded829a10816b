import type { Sql, SqlQueryable } from '@tessera/db/sql'
import { systemClock } from '../../platform/clock.ts'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import type { ProfileRow } from '../../platform/db/schema.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import type { CacheInvalidations } from '../events/cache-invalidation.ts'

export interface Profiles {
  /** The user's profile, created with `displayName` if the user has none yet. */
  ensure(claims: UserClaims, displayName: string | null): Promise<ProfileRow>
  get(claims: UserClaims): Promise<ProfileRow | null>
  /**
   * Sets the display name; null if the user has no profile. `announce` runs in the same
   * transaction (as the user), so the live event about the change commits with it.
   */
  update(
    claims: UserClaims,
    displayName: string,
    announce?: (tx: SqlQueryable, row: ProfileRow) => Promise<void>,
  ): Promise<ProfileRow | null>
}

/**
 * Profiles, read and written as the user (`withUser`), so RLS decides what each user reaches.
 * A profile read is kept for `cacheMs` (every request of `GET /api/me` shows it); writes through
 * this process replace it at once, other processes' as soon as their invalidation arrives (or
 * within `cacheMs` without `invalidations`).
 */
export function createProfiles(
  sql: Sql,
  options: { cacheMs?: number; clock?: Clock; invalidations?: CacheInvalidations } = {},
): Profiles {
  const cache = createRecentCache<ProfileRow>({
    max: 10_000,
    ttlMs: options.cacheMs ?? 2000,
    clock: options.clock ?? systemClock,
  })
  const { invalidations } = options
  invalidations?.subscribe((invalidation) => {
    if (invalidation.cache === 'profiles') cache.delete(invalidation.userId)
  })
  const keep = (row: ProfileRow): ProfileRow => {
    cache.set(row.user_id, row)
    return row
  }
  const select = (claims: UserClaims) =>
    queries.selectFrom('profiles').selectAll().where('user_id', '=', claims.sub)
  return {
    ensure: (claims, displayName) =>
      withUser(sql, claims, async (tx) => {
        const inserted = await execute(
          queries
            .insertInto('profiles')
            .values({ user_id: claims.sub, display_name: displayName })
            .onConflict((conflict) => conflict.column('user_id').doNothing())
            .returningAll(),
          tx,
        )
        const row = inserted.rows[0] ?? (await execute(select(claims), tx)).rows[0]
        if (row === undefined) throw new Error('The profile was neither created nor found.')
        return keep(row)
      }),
    // Concurrent reads of one profile share one query (see getOrLoad).
    get: (claims) =>
      cache.getOrLoad(claims.sub, () =>
        withUser(sql, claims, async (tx) => (await execute(select(claims), tx)).rows[0] ?? null),
      ),
    async update(claims, displayName, announce) {
      const row = await withUser(sql, claims, async (tx) => {
        const updated = (
          await execute(
            queries
              .updateTable('profiles')
              .set({ display_name: displayName })
              .where('user_id', '=', claims.sub)
              .returningAll(),
            tx,
          )
        ).rows[0]
        if (updated === undefined) return null
        await invalidations?.publish({ cache: 'profiles', userId: claims.sub }, tx)
        await announce?.(tx, updated)
        return updated
      })
      return row === null ? null : keep(row)
    },
  }
}
