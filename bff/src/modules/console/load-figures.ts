import type { RemoteLoadTiming, VersionLoads } from '@tessera/contracts'

/**
 * Upper bounds (ms) of the buckets that count how long people waited for a remote since the
 * page's navigation began; one more bucket holds everything above the last. Percentiles read from
 * these are the bucket's upper bound: coarse, but a fixed-size row per minute whatever the traffic.
 */
export const readyBucketBounds = [
  250, 500, 750, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 12000,
] as const

export function bucketOf(ms: number): number {
  const index = readyBucketBounds.findIndex((bound) => ms <= bound)
  return index === -1 ? readyBucketBounds.length : index
}

/** One minute's sums for one version, as stored in `remote_load_minutes`. */
export interface LoadSums {
  loads: number
  preloaded: number
  entryMs: number
  exposeMs: number
  mountMs: number
  readyBuckets: number[]
}

export function emptySums(): LoadSums {
  return {
    loads: 0,
    preloaded: 0,
    entryMs: 0,
    exposeMs: 0,
    mountMs: 0,
    readyBuckets: Array.from({ length: readyBucketBounds.length + 1 }, () => 0),
  }
}

export function addLoad(sums: LoadSums, load: RemoteLoadTiming): void {
  sums.loads += 1
  if (load.preloaded) sums.preloaded += 1
  sums.entryMs += Math.round(load.entryMs)
  sums.exposeMs += Math.round(load.exposeMs)
  sums.mountMs += Math.round(load.mountMs)
  const bucket = bucketOf(load.readyMs)
  sums.readyBuckets[bucket] = (sums.readyBuckets[bucket] ?? 0) + 1
}

export function addSums(into: LoadSums, from: LoadSums): void {
  into.loads += from.loads
  into.preloaded += from.preloaded
  into.entryMs += from.entryMs
  into.exposeMs += from.exposeMs
  into.mountMs += from.mountMs
  from.readyBuckets.forEach((count, index) => {
    into.readyBuckets[index] = (into.readyBuckets[index] ?? 0) + count
  })
}

/** The bucket bound at or under which `share` of the loads fell; null above the last bound. */
function percentile(buckets: readonly number[], total: number, share: number): number | null {
  const wanted = Math.ceil(total * share)
  let seen = 0
  for (const [index, count] of buckets.entries()) {
    seen += count
    if (seen >= wanted) return readyBucketBounds[index] ?? null
  }
  return null
}

/** What the console shows of a version's loads over the window; null when nobody loaded it. */
export function figuresOf(sums: LoadSums): VersionLoads | null {
  if (sums.loads === 0) return null
  const mean = (total: number) => Math.round(total / sums.loads)
  return {
    count: sums.loads,
    preloadedShare: sums.preloaded / sums.loads,
    entryMs: mean(sums.entryMs),
    exposeMs: mean(sums.exposeMs),
    mountMs: mean(sums.mountMs),
    readyP50Ms: percentile(sums.readyBuckets, sums.loads, 0.5),
    readyP95Ms: percentile(sums.readyBuckets, sums.loads, 0.95),
  }
}
