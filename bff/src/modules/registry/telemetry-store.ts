import type { RemoteErrorReport } from '@tessera/contracts'

export interface RecordedRemoteError extends RemoteErrorReport {
  /** ISO time the BFF received the report. */
  at: string
  requestId: string
}

/**
 * Recent remote-error reports, kept in memory in a ring buffer so a flood cannot grow it; the
 * deploy issue reads it to compute error rates per remote and version.
 */
export interface TelemetryStore {
  record(entry: RecordedRemoteError): void
  /** Oldest first; `since` (ISO time, inclusive) and `remote` narrow the list. */
  recent(filter?: { since?: string; remote?: string }): RecordedRemoteError[]
}

export function createTelemetryStore(options: { capacity?: number } = {}): TelemetryStore {
  const capacity = options.capacity ?? 1000
  const entries: RecordedRemoteError[] = []
  let next = 0

  return {
    record(entry) {
      if (entries.length < capacity) {
        entries.push(entry)
      } else {
        entries[next] = entry
      }
      next = (next + 1) % capacity
    },
    recent(filter = {}) {
      const ordered =
        entries.length < capacity ? entries : [...entries.slice(next), ...entries.slice(0, next)]
      const sinceMs = filter.since === undefined ? undefined : Date.parse(filter.since)
      return ordered.filter(
        (entry) =>
          (sinceMs === undefined || Date.parse(entry.at) >= sinceMs) &&
          (filter.remote === undefined || entry.remote === filter.remote),
      )
    },
  }
}
