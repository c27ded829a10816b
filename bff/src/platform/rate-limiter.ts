import type { Clock } from './clock.ts'

export type RateDecision =
  { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number }

export interface RateLimiter {
  /** Counts one request for `key` and says whether it may go ahead. */
  hit(key: string): RateDecision
}

/**
 * A fixed-window counter per key, in memory. Good enough for one process; windows that have
 * ended are swept once the map grows, so many one-off clients cannot grow it without bound.
 */
export function createRateLimiter(options: {
  limit: number
  windowMs: number
  clock: Clock
  maxKeys?: number
}): RateLimiter {
  const { limit, windowMs, clock } = options
  const maxKeys = options.maxKeys ?? 10_000
  const windows = new Map<string, { startedAt: number; count: number }>()

  function sweep(now: number): void {
    for (const [key, window] of windows) {
      if (now - window.startedAt >= windowMs) windows.delete(key)
    }
    // Still full of live windows: drop the oldest rather than grow without bound.
    while (windows.size >= maxKeys) {
      const oldest = windows.keys().next()
      if (oldest.done) break
      windows.delete(oldest.value)
    }
  }

  return {
    hit(key) {
      const now = clock.now()
      let window = windows.get(key)
      if (window === undefined || now - window.startedAt >= windowMs) {
        if (window === undefined && windows.size >= maxKeys) sweep(now)
        window = { startedAt: now, count: 0 }
        windows.set(key, window)
      }
      window.count += 1
      if (window.count <= limit) return { allowed: true, remaining: limit - window.count }
      const retryAfterSeconds = Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000))
      return { allowed: false, retryAfterSeconds }
    },
  }
}
