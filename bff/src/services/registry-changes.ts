import type { Clock } from '../clock.ts'
import type { Logger } from '../logger.ts'
import { createLiveEvent } from './event-hub.ts'
import type { EventHub } from './event-hub.ts'
import type { RegistrySource } from './registry.ts'
import { createSnapshotReader } from './registry.ts'

/**
 * Publishes `registry.changed` to every connection when the registry's remotes change, so open
 * pages can refetch `GET /api/remotes`. Needs a source that can watch; returns the stop function.
 */
export async function publishRegistryChanges(deps: {
  registry: RegistrySource
  hub: EventHub
  logger: Logger
  clock: Clock
}): Promise<() => void> {
  const { registry, hub, clock } = deps
  if (registry.watch === undefined) return () => undefined
  const readSnapshot = createSnapshotReader(deps)
  const fingerprint = async (): Promise<{
    key: string
    remotes: { name: string; version: string }[]
  }> => {
    const snapshot = await readSnapshot()
    const remotes = snapshot.remotes.map(({ name, version }) => ({ name, version }))
    // generatedAt changes every read; only what the host would draw differently counts.
    return { key: JSON.stringify([snapshot.remotes, snapshot.diagnostics]), remotes }
  }
  let last = (await fingerprint()).key
  let checking = Promise.resolve()
  const check = async (): Promise<void> => {
    const current = await fingerprint()
    if (current.key === last) return
    last = current.key
    hub.publish({
      topic: 'broadcast',
      event: createLiveEvent('registry.changed', { remotes: current.remotes }, clock),
    })
  }
  return registry.watch(() => {
    // Checks run one after another so two quick changes cannot publish out of order.
    checking = checking.then(check).catch((error: unknown) => {
      deps.logger.error('registry change check failed', { error })
    })
  })
}
