import { RESYNC_EVENT_TYPE } from '@tessera/contracts'
import type { PlatformEvents, RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import { remoteLabel } from '../remotes/loader.ts'

/** The live event the BFF sends when what the registry serves changes (a promote, a rollback). */
export const REGISTRY_CHANGED = 'registry.changed'

/**
 * The remotes this page would load differently now: another version or entry, or a remote that
 * came or went. Named as the navigation names them, in the snapshot's order.
 */
export function changedRemotes(loaded: RegistrySnapshot, current: RegistrySnapshot): string[] {
  const key = (remote: SnapshotRemote) => `${remote.version} ${remote.entryUrl}`
  const before = new Map(loaded.remotes.map((remote) => [remote.name, remote]))
  const after = new Map(current.remotes.map((remote) => [remote.name, remote]))
  const changed = [
    ...loaded.remotes.filter((remote) => {
      const now = after.get(remote.name)
      return now === undefined || key(now) !== key(remote)
    }),
    ...current.remotes.filter((remote) => !before.has(remote.name)),
  ]
  return changed.map(remoteLabel)
}

export interface WatchRemoteUpdatesOptions {
  events: Pick<PlatformEvents, 'subscribe'>
  /** The snapshot this page loaded with. */
  loaded: RegistrySnapshot
  /** This viewer's snapshot now (`GET /api/remotes`: their canary share included). */
  fetchSnapshot(): Promise<RegistrySnapshot>
  /** The remotes that changed since the page loaded; an empty list when they are back as loaded. */
  onChange(remotes: string[]): void
  warn?: (message: string, detail?: unknown) => void
}

/**
 * Tells the page when the registry serves this viewer something else than it loaded. On each
 * `registry.changed` it asks for the viewer's snapshot again (one request at a time; changes that
 * arrive meanwhile are read by one more); a request that fails waits for the next change.
 * Returns the function that stops watching.
 */
export function watchRemoteUpdates({
  events,
  loaded,
  fetchSnapshot,
  onChange,
  warn = (message, detail) => console.warn(message, detail),
}: WatchRemoteUpdatesOptions): () => void {
  let stopped = false
  let reading = false
  let again = false

  async function read(): Promise<void> {
    if (reading) {
      again = true
      return
    }
    reading = true
    try {
      do {
        again = false
        try {
          const current = await fetchSnapshot()
          if (!stopped && !again) onChange(changedRemotes(loaded, current))
        } catch (error) {
          warn('Could not read the registry after it changed', error)
        }
      } while (again && !stopped)
    } finally {
      reading = false
    }
  }

  const unsubscribers = [
    events.subscribe(REGISTRY_CHANGED, () => void read()),
    // The stream could not be resumed: a change may have been missed, so read the snapshot.
    events.subscribe(RESYNC_EVENT_TYPE, () => void read()),
  ]
  return () => {
    stopped = true
    for (const unsubscribe of unsubscribers) unsubscribe()
  }
}
