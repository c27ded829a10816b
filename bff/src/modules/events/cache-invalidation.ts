/**
 * Caches that stay true on every replica: a change to what a per-process cache holds publishes a
 * `cache.invalidate` event on the `internal` topic (through the same outbox as live events, so in
 * the change's transaction where there is one), and every replica, this one included, drops what
 * it kept. The `internal` topic is never sent to a browser.
 */
import type { LiveEvent } from '@tessera/contracts'
import type { SqlQueryable } from '@tessera/db/sql'
import { z } from 'zod/mini'
import type { Clock } from '../../platform/clock.ts'
import { createLiveEvent } from './event-hub.ts'
import type { EventHub } from './event-hub.ts'
import type { EventBus } from './event-outbox.ts'

export const CACHE_INVALIDATE_TYPE = 'cache.invalidate'

const invalidationSchema = z.discriminatedUnion('cache', [
  /** A user's sessions (all of them), or only the sessions named. */
  z.object({
    cache: z.literal('sessions'),
    userId: z.string(),
    sessionIds: z.optional(z.array(z.string())),
  }),
  z.object({ cache: z.literal('profiles'), userId: z.string() }),
  /** The user's subscription and entitlements (billing). */
  z.object({ cache: z.literal('subscriptions'), userId: z.string() }),
  /** Stripe prices found by lookup key. */
  z.object({ cache: z.literal('prices') }),
  /** The registry snapshot. */
  z.object({ cache: z.literal('registry') }),
  /** Whether a user holds the operator role (granted or revoked). */
  z.object({ cache: z.literal('roles'), userId: z.string() }),
  /** The user's sessions' workspaces and what their plans allow (workspaces/session-contexts). */
  z.object({ cache: z.literal('workspaces'), userId: z.string() }),
])
export type Invalidation = z.infer<typeof invalidationSchema>

export interface CacheInvalidations {
  /** Tells every replica to drop what it keeps of `invalidation` (with `tx`: at its commit). */
  publish(invalidation: Invalidation, tx?: SqlQueryable): Promise<void>
  /** Calls `drop` for every invalidation any replica publishes; returns the unsubscribe. */
  subscribe(drop: (invalidation: Invalidation) => void): () => void
}

/** Invalidations over the event bus, heard on this replica's hub. */
export function createCacheInvalidations(deps: {
  bus: EventBus
  hub: EventHub
  clock: Clock
}): CacheInvalidations {
  const { bus, hub, clock } = deps
  return {
    publish(invalidation, tx) {
      const event: LiveEvent = createLiveEvent(CACHE_INVALIDATE_TYPE, invalidation, clock)
      // The outbox function checks a user's own transaction against `data.userId`.
      return bus.publish({ topic: 'internal', event }, tx)
    },
    subscribe(drop) {
      return hub.subscribe({
        topics: ['internal'],
        onEvent(event) {
          if (event.type !== CACHE_INVALIDATE_TYPE) return
          const parsed = invalidationSchema.safeParse(event.data)
          if (parsed.success) drop(parsed.data)
        },
      })
    },
  }
}
