import type { RemoteErrorReport, SnapshotRemote } from '@tessera/contracts'

export interface RuntimeErrorWatchOptions {
  target: EventTarget
  remotes: readonly SnapshotRemote[]
  report: (report: RemoteErrorReport) => void
  /** Reports per remote version per page, so a render loop cannot flood the BFF. */
  maxPerVersion?: number
}

/**
 * Reports uncaught errors that come from a remote's code (stage `runtime`). Each remote renders in
 * its own root, so its crashes never reach the host's error boundaries; the file a script was
 * served from (or a frame of the stack) tells which remote and version threw.
 */
export function watchRemoteRuntimeErrors({
  target,
  remotes,
  report,
  maxPerVersion = 5,
}: RuntimeErrorWatchOptions): () => void {
  const origins: Array<{ prefix: string; remote: string; version: string }> = []
  for (const remote of remotes) {
    origins.push({
      prefix: new URL('.', remote.entryUrl).href,
      remote: remote.name,
      version: remote.version,
    })
    if (remote.previous) {
      origins.push({
        prefix: new URL('.', remote.previous.entryUrl).href,
        remote: remote.name,
        version: remote.previous.version,
      })
    }
  }
  const counts = new Map<string, number>()

  const onError = (event: Event): void => {
    if (!(event instanceof ErrorEvent)) return
    const stack = event.error instanceof Error ? (event.error.stack ?? '') : ''
    const match = origins.find(
      ({ prefix }) => event.filename?.startsWith(prefix) || stack.includes(prefix),
    )
    if (!match) return
    const key = `${match.remote}@${match.version}`
    const count = (counts.get(key) ?? 0) + 1
    counts.set(key, count)
    if (count > maxPerVersion) return
    const message = event.error instanceof Error ? event.error.message : event.message
    report({
      remote: match.remote,
      version: match.version,
      stage: 'runtime',
      message,
      fellBack: false,
    })
  }

  target.addEventListener('error', onError)
  return () => target.removeEventListener('error', onError)
}
