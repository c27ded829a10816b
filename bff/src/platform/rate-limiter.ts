import type { Clock } from './clock.ts'
import { ApiErrorWithHeaders } from './errors.ts'
import type { SharedCounters } from './shared-counters.ts'

export type RateDecision =
  | { allowed: true; remaining: number; resetSeconds: number }
  | { allowed: false; retryAfterSeconds: number }

/** What a limiter allows, as the `RateLimit-Policy` header names it. */
export interface RatePolicy {
  name: string
  limit: number
  windowSeconds: number
}

export interface RateLimiter {
  /** Counts one request for `key` and says whether it may go ahead. */
  hit(key: string): RateDecision | Promise<RateDecision>
  readonly policy?: RatePolicy
}

/** The decision for the `count`-th request of a window that ends at `resetAt`. */
function decide(count: number, limit: number, resetAt: number, now: number): RateDecision {
  const resetSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000))
  if (count <= limit) return { allowed: true, remaining: limit - count, resetSeconds }
  return { allowed: false, retryAfterSeconds: resetSeconds }
}

/**
 * Makes room for one more entry in `map` once it holds `max`: the entries that have `ended` go
 * first, then (still full of live ones) the oldest, rather than grow without bound.
 */
function makeRoom<K, V>(map: Map<K, V>, max: number, ended: (value: V) => boolean): void {
  if (map.size < max) return
  for (const [key, value] of map) if (ended(value)) map.delete(key)
  while (map.size >= max) {
    const oldest = map.keys().next()
    if (oldest.done) break
    map.delete(oldest.value)
  }
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
  /** The policy's name in the `RateLimit` headers. */
  name?: string
}): { hit(key: string): RateDecision; readonly policy: RatePolicy } {
  const { limit, windowMs, clock } = options
  const maxKeys = options.maxKeys ?? 10_000
  const windows = new Map<string, { startedAt: number; count: number }>()

  return {
    policy: {
      name: options.name ?? 'default',
      limit,
      windowSeconds: Math.round(windowMs / 1000),
    },
    hit(key) {
      const now = clock.now()
      let window = windows.get(key)
      if (window === undefined || now - window.startedAt >= windowMs) {
        if (window === undefined)
          makeRoom(windows, maxKeys, (ended) => now - ended.startedAt >= windowMs)
        window = { startedAt: now, count: 0 }
        windows.set(key, window)
      }
      window.count += 1
      return decide(window.count, limit, window.startedAt + windowMs, now)
    },
  }
}

/**
 * A fixed-window limiter every replica shares (platform/shared-counters.ts): one statement per
 * hit. While the database fails or is slow, this process counts on its own (with a warning),
 * so a limit is never lifted, only no longer shared. A key the database refused is refused here,
 * at once and without a statement, until the window it named ends: a fixed window's end does not
 * move with more hits, so the answer would be the same.
 */
export function createSharedRateLimiter(options: {
  counters: SharedCounters
  /** What is counted ('chat', 'deploy', …): its scope in the table and its policy's name. */
  name: string
  limit: number
  windowMs: number
  clock: Clock
  /** How many refused keys are remembered at most (the oldest are forgotten first). */
  maxRefused?: number
}): { hit(key: string): RateDecision | Promise<RateDecision>; readonly policy: RatePolicy } {
  const { counters, name, limit, windowMs, clock } = options
  const maxRefused = options.maxRefused ?? 10_000
  const local = createRateLimiter({ limit, windowMs, clock, name })
  // Keys over the limit, and when their window ends (ms).
  const refused = new Map<string, number>()
  return {
    policy: local.policy,
    hit(key) {
      const known = refused.get(key)
      if (known !== undefined) {
        const now = clock.now()
        if (known > now) return decide(limit + 1, limit, known, now)
        refused.delete(key)
      }
      return counters.attempt(
        `${name} rate limit`,
        async () => {
          const now = clock.now()
          const [state] = await counters.hit(name, [{ key, ttlMs: windowMs }], now)
          if (state === undefined) throw new Error('the counter upsert returned no row')
          const decision = decide(state.hits, limit, state.expiresAt, now)
          if (!decision.allowed) {
            makeRoom(refused, maxRefused, (end) => end <= now)
            refused.set(key, state.expiresAt)
          }
          return decision
        },
        () => local.hit(key),
      )
    },
  }
}

/**
 * The draft IETF `RateLimit-Policy` and `RateLimit` response fields
 * (draft-ietf-httpapi-ratelimit-headers): the policy, and what is left of it and for how long.
 */
export function rateLimitHeaders(
  policy: RatePolicy,
  decision: RateDecision,
): Record<string, string> {
  const remaining = decision.allowed ? decision.remaining : 0
  const reset = decision.allowed ? decision.resetSeconds : decision.retryAfterSeconds
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${remaining};t=${reset}`,
  }
}

/** One limit: what it counts (its name), how many, and per how long. */
export interface LimitPolicy {
  name: string
  limit: number
  windowMs: number
}

/** Makes the limiter of a policy: shared by every replica, or this process's own. */
export type Limiters = (policy: LimitPolicy) => RateLimiter

/** Limiters counting in this process only (one BFF, or tests without a database). */
export function localLimiters(clock: Clock): Limiters {
  return (policy) => createRateLimiter({ ...policy, clock })
}

/** Limiters every replica shares through the database, each falling back to its own count. */
export function sharedLimiters(counters: SharedCounters, clock: Clock): Limiters {
  return (policy) => createSharedRateLimiter({ ...policy, counters, clock })
}

/** The `rate_limited` error for a refusal: Retry-After, and the `RateLimit` fields. */
export function rateLimited(
  limiter: RateLimiter,
  decision: RateDecision & { allowed: false },
): ApiErrorWithHeaders {
  return new ApiErrorWithHeaders('rate_limited', {
    details: { retryAfterSeconds: decision.retryAfterSeconds },
    headers: limiter.policy === undefined ? {} : rateLimitHeaders(limiter.policy, decision),
  })
}
