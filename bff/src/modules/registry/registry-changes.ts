import type { SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import type { CacheInvalidations } from '../events/cache-invalidation.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventHub } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import { loadRegistryContent } from './registry-db-source.ts'
import type { RegistrySource } from './registry.ts'
import { buildSnapshot, createSnapshotReader } from './registry.ts'

/** What `registry.changed` tells open pages: each remote's stable version and running canary. */
export interface RegistryChangedData {
  remotes: {
    name: string
    version: string
    canary: { version: string; percentage: number } | null
  }[]
}

/** Everyone's view of the content: the stable entries, and the canary each one runs. */
function summarize(content: unknown): { key: string; data: RegistryChangedData } {
  const stable = buildSnapshot(content, '')
  // The same content with everyone in every canary shows what each canary serves.
  const canaries = buildSnapshot(content, '', () => true)
  const remotes = stable.remotes.map(({ name, version }) => {
    const canary = canaries.remotes.find(
      (remote) => remote.name === name && remote.channel === 'canary',
    )
    const percentage = canaryPercentage(content, name)
    return {
      name,
      version,
      canary:
        canary === undefined || percentage === null
          ? null
          : { version: canary.version, percentage },
    }
  })
  // generatedAt is empty on purpose: only what a host would draw or load differently counts.
  return {
    key: JSON.stringify([stable.remotes, canaries.remotes, stable.diagnostics, remotes]),
    data: { remotes },
  }
}

function canaryPercentage(content: unknown, name: string): number | null {
  if (typeof content !== 'object' || content === null || !('remotes' in content)) return null
  if (!Array.isArray(content.remotes)) return null
  for (const entry of content.remotes as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue
    if (!('name' in entry) || entry.name !== name || !('canary' in entry)) continue
    const canary = entry.canary
    if (typeof canary === 'object' && canary !== null && 'percentage' in canary) {
      return typeof canary.percentage === 'number' ? canary.percentage : null
    }
  }
  return null
}

/**
 * Publishes `registry.changed` in the transaction of a channel move (a promote, a canary, a
 * rollback), with what the registry serves once it commits, and tells every replica to read its
 * registry again. The outbox's way (docs/decisions/018): one event per change, whichever replica
 * made it, replayable by a tab that reconnects.
 */
export async function publishRegistryChange(
  deps: { bus: EventBus; invalidations?: CacheInvalidations; clock: Clock },
  tx: SqlQueryable,
): Promise<void> {
  const { data } = summarize(await loadRegistryContent(tx))
  // The event before the invalidation: a replica's watch (publishRegistryChanges) has heard the
  // news by the time the invalidation makes it look, and does not announce it again.
  await deps.bus.publish(
    { topic: 'broadcast', event: createLiveEvent('registry.changed', data, deps.clock) },
    tx,
  )
  await deps.invalidations?.publish({ cache: 'registry' }, tx)
}

/**
 * Publishes `registry.changed` to every connection when what the registry serves changes (a
 * promote, a canary, a rollback), so open pages can refetch `GET /api/remotes`. Needs a source
 * that can watch; returns the stop function. Changes made through the deploy API arrive through
 * the outbox (publishRegistryChange) and are not announced again; this catches the rest (a row
 * changed by hand), on each replica for its own streams.
 */
export async function publishRegistryChanges(deps: {
  registry: RegistrySource
  hub: EventHub
  logger: Logger
  clock: Clock
}): Promise<() => void> {
  const { registry, hub, clock } = deps
  if (registry.watch === undefined) return () => undefined
  const reader = createSnapshotReader(deps)
  let last = summarize(await reader.content()).key
  let checking = Promise.resolve()
  const check = async (): Promise<void> => {
    const current = summarize(await reader.content())
    if (current.key === last) return
    last = current.key
    hub.publish({
      topic: 'broadcast',
      event: createLiveEvent('registry.changed', current.data, clock),
    })
  }
  // A change another replica announced through the outbox (publishRegistryChange) is news
  // already: the watch below must not announce it a second time.
  const stopHearing = hub.subscribe({
    topics: ['broadcast'],
    onEvent(event, message) {
      if (event.type !== 'registry.changed' || message.seq === undefined) return
      checking = checking
        .then(async () => {
          last = summarize(await reader.content()).key
        })
        .catch((error: unknown) => {
          deps.logger.error('registry change check failed', { error })
        })
    },
  })
  const stopWatching = registry.watch(() => {
    // Checks run one after another so two quick changes cannot publish out of order.
    checking = checking.then(check).catch((error: unknown) => {
      deps.logger.error('registry change check failed', { error })
    })
  })
  return () => {
    stopHearing()
    stopWatching()
  }
}
