import type { Clock } from './clock.ts'

export interface RecentCache<V> {
  /** The value kept for `key`, unless it is older than the cache's lifetime. */
  get(key: string): V | undefined
  set(key: string, value: V): void
  delete(key: string): void
  /** Drops every value `matches` picks. */
  deleteWhere(matches: (value: V) => boolean): void
  /**
   * The value kept for `key`, or else the one `load` finds (null: none), kept. Calls for a key
   * whose load is in flight share it, so a burst of requests after a value expires costs one
   * lookup. A load that was in flight when the cache was changed (`set`, `delete`…) is not kept
   * and is not shared with later calls: it may have read the data from before the change.
   */
  getOrLoad(key: string, load: () => Promise<V | null>): Promise<V | null>
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
  const loads = new Map<string, { generation: number; value: Promise<V | null> }>()
  // Bumped by every change from outside, so loads that started before it are not kept.
  let generation = 0
  const now = () => (clock === undefined ? 0 : clock.now())
  const get = (key: string): V | undefined => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= now()) {
      entries.delete(key)
      return undefined
    }
    return entry.value
  }
  const keep = (key: string, value: V): void => {
    entries.delete(key)
    if (entries.size >= max) entries.delete(entries.keys().next().value ?? '')
    entries.set(key, { value, until: ttlMs === undefined ? Infinity : now() + ttlMs })
  }
  return {
    get,
    set(key, value) {
      generation++
      keep(key, value)
    },
    delete(key) {
      generation++
      entries.delete(key)
    },
    deleteWhere(matches) {
      generation++
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key)
    },
    getOrLoad(key, load) {
      const kept = get(key)
      if (kept !== undefined) return Promise.resolve(kept)
      const inflight = loads.get(key)
      if (inflight !== undefined && inflight.generation === generation) return inflight.value
      const started = generation
      const value = load().then((found) => {
        if (found !== null && generation === started) keep(key, found)
        return found
      })
      const flight = { generation: started, value }
      loads.set(key, flight)
      const done = () => {
        if (loads.get(key) === flight) loads.delete(key)
      }
      value.then(done, done)
      return value
    },
  }
}
