import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventHub } from '../events/event-hub.ts'
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
 * Publishes `registry.changed` to every connection when what the registry serves changes (a
 * promote, a canary, a rollback), so open pages can refetch `GET /api/remotes`. Needs a source
 * that can watch; returns the stop function.
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
  return registry.watch(() => {
    // Checks run one after another so two quick changes cannot publish out of order.
    checking = checking.then(check).catch((error: unknown) => {
      deps.logger.error('registry change check failed', { error })
    })
  })
}
