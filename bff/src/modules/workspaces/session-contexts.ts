/**
 * What every signed-in request asks of a session's workspace, kept per session
 * (docs/decisions/034): which workspace it works in and what that workspace's plan allows. Both
 * are read at every `GET /api/me`; without this, that costs five statements each time.
 *
 * A change to either (a switch, a join, a removal, a rename, a role, a team's or the user's
 * subscription) calls `changed` with the users it touches: their sessions are dropped here at
 * once, and on every replica (this one again) when the change commits, through a `workspaces`
 * cache invalidation. A value is kept at most `ttlMs` in any case.
 */
import type { Entitlements, SignedIn } from '@tessera/contracts'
import type { SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import type { CacheInvalidations } from '../events/cache-invalidation.ts'

export type SessionWorkspace = NonNullable<SignedIn['workspace']>

/** Tells every replica that what `userIds`' sessions see of their workspaces changed. */
export type UsersChanged = (userIds: Iterable<string>, tx?: SqlQueryable) => Promise<void>

export interface SessionContexts {
  workspace(
    session: { id: string; userId: string },
    load: () => Promise<SessionWorkspace>,
  ): Promise<SessionWorkspace>
  entitlements(
    session: { id: string; userId: string },
    load: () => Promise<Entitlements>,
  ): Promise<Entitlements>
  changed: UsersChanged
}

/** Sessions kept at most; the oldest go first beyond it. */
const MAX_SESSIONS = 20_000

export function createSessionContexts(deps: {
  clock: Clock
  ttlMs: number
  invalidations: CacheInvalidations
}): SessionContexts {
  const { clock, ttlMs, invalidations } = deps
  const options = { max: MAX_SESSIONS, ttlMs, clock }
  const workspaces = createRecentCache<{ userId: string; value: SessionWorkspace }>(options)
  const entitlements = createRecentCache<{ userId: string; value: Entitlements }>(options)
  const forget = (userId: string) => {
    workspaces.deleteWhere((kept) => kept.userId === userId)
    entitlements.deleteWhere((kept) => kept.userId === userId)
  }
  invalidations.subscribe((invalidation) => {
    if (invalidation.cache === 'workspaces') forget(invalidation.userId)
  })
  return {
    async workspace(session, load) {
      const kept = await workspaces.getOrLoad(session.id, async () => ({
        userId: session.userId,
        value: await load(),
      }))
      if (kept === null) throw new Error('a session workspace load found nothing')
      return kept.value
    },
    async entitlements(session, load) {
      const kept = await entitlements.getOrLoad(session.id, async () => ({
        userId: session.userId,
        value: await load(),
      }))
      if (kept === null) throw new Error('a session entitlements load found nothing')
      return kept.value
    },
    async changed(userIds, tx) {
      for (const userId of new Set(userIds)) {
        forget(userId)
        await invalidations.publish({ cache: 'workspaces', userId }, tx)
      }
    },
  }
}
