import { ApiError } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number }

export interface SignInThrottle {
  /** Whether a sign-in for these keys may be tried now. Counts nothing. */
  check(keys: readonly string[]): ThrottleDecision
  /** Counts one failed sign-in against each key. */
  fail(keys: readonly string[]): void
  /** Forgets a key's failures (after a successful sign-in for that address). */
  reset(key: string): void
}

interface ThrottleRule {
  /** Keys this rule applies to, by prefix (`email:`, `client:`). */
  prefix: string
  maxFailures: number
}

/**
 * Failed sign-ins per key in a fixed window, in memory: after `maxFailures` failures for an
 * address (or a client address) further attempts are refused until the window ends, before they
 * reach Supabase Auth. One process's view; a fleet of BFFs would share it through Postgres.
 */
export function createSignInThrottle(options: {
  rules: readonly ThrottleRule[]
  windowMs: number
  clock: Clock
  maxKeys?: number
}): SignInThrottle {
  const { windowMs, clock } = options
  const maxKeys = options.maxKeys ?? 10_000
  const windows = new Map<string, { startedAt: number; failures: number }>()
  const limitOf = (key: string) =>
    options.rules.find((rule) => key.startsWith(rule.prefix))?.maxFailures ?? Infinity

  const live = (key: string, now: number) => {
    const window = windows.get(key)
    if (window === undefined) return undefined
    if (now - window.startedAt >= windowMs) {
      windows.delete(key)
      return undefined
    }
    return window
  }

  return {
    check(keys) {
      const now = clock.now()
      let waitMs = 0
      for (const key of keys) {
        const window = live(key, now)
        if (window !== undefined && window.failures >= limitOf(key))
          waitMs = Math.max(waitMs, window.startedAt + windowMs - now)
      }
      return waitMs > 0
        ? { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) }
        : { allowed: true }
    },
    fail(keys) {
      const now = clock.now()
      for (const key of keys) {
        const window = live(key, now)
        if (window !== undefined) {
          window.failures += 1
          continue
        }
        // Full: drop the oldest window rather than grow without bound.
        if (windows.size >= maxKeys) {
          const oldest = windows.keys().next()
          if (!oldest.done) windows.delete(oldest.value)
        }
        windows.set(key, { startedAt: now, failures: 1 })
      }
    },
    reset(key) {
      windows.delete(key)
    },
  }
}

/** Refuses with `rate_limited` (and when to retry) while any of the keys is over its limit. */
export function enforceThrottle(throttle: SignInThrottle, keys: readonly string[]): void {
  const decision = throttle.check(keys)
  if (!decision.allowed) {
    throw new ApiError('rate_limited', {
      details: { retryAfterSeconds: decision.retryAfterSeconds },
    })
  }
}
