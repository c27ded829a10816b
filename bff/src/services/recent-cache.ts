import type { Clock } from '../clock.ts'

export interface RecentCache<V> {
  /** The value kept for `key`, unless it is older than the cache's lifetime. */
  get(key: string): V | undefined
  set(key: string, value: V): void
  delete(key: string): void
  /** Drops every value `matches` picks. */
  deleteWhere(matches: (value: V) => boolean): void
}

/**
 * Values looked up lately, in memory: each kept for `ttlMs` (forever without it), at most `max`
 * of them, the oldest dropped first. For lookups many requests repeat (one session, one profile).
 */
export function createRecentCache<V>(options: {
  max: number
  ttlMs?: number
  clock?: Clock
}): RecentCache<V> {
  const { max, ttlMs, clock } = options
  const entries = new Map<string, { value: V; until: number }>()
  const now = () => (clock === undefined ? 0 : clock.now())
  return {
    get(key) {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until <= now()) {
        entries.delete(key)
        return undefined
      }
      return entry.value
    },
    set(key, value) {
      entries.delete(key)
      if (entries.size >= max) entries.delete(entries.keys().next().value ?? '')
      entries.set(key, { value, until: ttlMs === undefined ? Infinity : now() + ttlMs })
    },
    delete(key) {
      entries.delete(key)
    },
    deleteWhere(matches) {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key)
    },
  }
}
