import { ApiError } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'

/** Which limit refused: the account's back-off or the client address's hard limit. */
export type ThrottleLimit = 'account' | 'client'

export type ThrottleDecision =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: ThrottleLimit }

export interface SignInThrottle {
  /**
   * Whether a password may be tried now for these keys (`email:…` or `device:…`, and `client:…`).
   * Counts nothing.
   */
  check(keys: readonly string[]): Promise<ThrottleDecision>
  /** Counts one wrong password against each key. */
  fail(keys: readonly string[]): Promise<void>
  /** Forgets a key's failures (an account's, after its owner signed in). */
  reset(key: string): Promise<void>
}

export interface SignInThrottleOptions {
  clock: Clock
  account: BackoffSchedule & {
    /** How long an account's failures are remembered after its latest one. */
    memoryMs: number
  }
  client: { maxFailures: number; windowMs: number }
  /** The most accounts and the most clients each tracked at once; the oldest make room. */
  maxKeys?: number
}

export interface BackoffSchedule {
  /** Failures before any delay. */
  freeFailures: number
  /** The delay after the first failure past the free ones; each further failure doubles it. */
  baseDelayMs: number
  /** The longest delay. */
  maxDelayMs: number
}

/** How long after its latest failure an account must wait before its password is tried again. */
export function backoffDelayMs(failures: number, schedule: BackoffSchedule): number {
  const doublings = failures - schedule.freeFailures - 1
  if (doublings < 0) return 0
  // 2^doublings outgrows any cap long before it outgrows a double.
  return Math.min(schedule.baseDelayMs * 2 ** Math.min(doublings, 64), schedule.maxDelayMs)
}

/**
 * Two limits on guessing passwords, in memory (one process's view; a fleet of BFFs would share
 * them through Postgres):
 *
 * - per account (`email:` keys), an exponential back-off: after the free failures, each failure
 *   doubles the wait before the account's password is tried again, up to a cap. It delays and
 *   never locks: however many addresses an attacker uses, the owner can sign in once the current
 *   wait is over, and a success forgets the failures. A browser that signed in to the account
 *   before has a back-off of its own instead (`device:` keys, known-devices.ts);
 * - per client address (`client:` keys), a hard limit of failures in a fixed window, so one
 *   address cannot guess fast across many accounts.
 *
 * Refusals happen before Supabase Auth is asked, so an attack during a back-off costs nothing.
 */
export function createSignInThrottle(options: SignInThrottleOptions): SignInThrottle {
  const { clock, account, client } = options
  const maxKeys = options.maxKeys ?? 10_000
  const accounts = new Map<string, { failures: number; lastFailureAt: number }>()
  const clients = new Map<string, { startedAt: number; failures: number }>()

  const liveAccount = (key: string, now: number) => {
    const state = accounts.get(key)
    if (state !== undefined && now - state.lastFailureAt >= account.memoryMs) {
      accounts.delete(key)
      return undefined
    }
    return state
  }
  const liveClient = (key: string, now: number) => {
    const window = clients.get(key)
    if (window !== undefined && now - window.startedAt >= client.windowMs) {
      clients.delete(key)
      return undefined
    }
    return window
  }
  const makeRoom = (map: Map<string, unknown>) => {
    if (map.size < maxKeys) return
    const oldest = map.keys().next()
    if (!oldest.done) map.delete(oldest.value)
  }

  /** How long `key` must wait (ms, 0 for not at all). */
  const waitOf = (key: string, now: number): number => {
    if (isAccountKey(key)) {
      const state = liveAccount(key, now)
      if (state === undefined) return 0
      return Math.max(0, state.lastFailureAt + backoffDelayMs(state.failures, account) - now)
    }
    if (key.startsWith('client:')) {
      const window = liveClient(key, now)
      if (window === undefined || window.failures < client.maxFailures) return 0
      return window.startedAt + client.windowMs - now
    }
    return 0
  }

  return {
    async check(keys) {
      const now = clock.now()
      return decisionOf(keys.map((key) => ({ key, waitMs: waitOf(key, now) })))
    },
    async fail(keys) {
      const now = clock.now()
      for (const key of keys) {
        if (isAccountKey(key)) {
          const failures = (liveAccount(key, now)?.failures ?? 0) + 1
          // Re-inserted, so the account that failed longest ago is the one that makes room.
          accounts.delete(key)
          makeRoom(accounts)
          accounts.set(key, { failures, lastFailureAt: now })
        } else if (key.startsWith('client:')) {
          const window = liveClient(key, now)
          if (window !== undefined) {
            window.failures += 1
          } else {
            makeRoom(clients)
            clients.set(key, { startedAt: now, failures: 1 })
          }
        }
      }
    },
    async reset(key) {
      accounts.delete(key)
      clients.delete(key)
    },
  }
}

/** The longest of the keys' waits decides; which kind of key it was names the limit. */
function decisionOf(waits: readonly { key: string; waitMs: number }[]): ThrottleDecision {
  let waitMs = 0
  let limit: ThrottleLimit = 'account'
  for (const wait of waits) {
    if (wait.waitMs > waitMs) {
      waitMs = wait.waitMs
      limit = wait.key.startsWith('client:') ? 'client' : 'account'
    }
  }
  return waitMs > 0
    ? { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), limit }
    : { allowed: true }
}

const isAccountKey = (key: string) => key.startsWith('email:') || key.startsWith('device:')

/**
 * The same two limits, shared by every BFF replica through PostgreSQL (platform/shared-counters.ts):
 * a check is one read, a failure one upsert of all its keys, so N replicas allow an attacker what
 * one does. While the database fails or is slow, the process's own throttle counts instead (with
 * a warning): the limits are then per replica, never lifted.
 */
export function createSharedSignInThrottle(
  options: SignInThrottleOptions & { counters: SharedCounters },
): SignInThrottle {
  const { clock, account, client, counters } = options
  const local = createSignInThrottle(options)
  const scope = 'sign-in'
  return {
    check(keys) {
      return counters.attempt(
        'sign-in throttle',
        async () => {
          const now = clock.now()
          const states = await counters.read(scope, keys, now)
          return decisionOf(
            states.map((state) => ({
              key: state.key,
              waitMs: isAccountKey(state.key)
                ? Math.max(0, state.lastHitAt + backoffDelayMs(state.hits, account) - now)
                : state.key.startsWith('client:') && state.hits >= client.maxFailures
                  ? state.expiresAt - now
                  : 0,
            })),
          )
        },
        () => local.check(keys),
      )
    },
    fail(keys) {
      const hits = keys.flatMap((key) =>
        isAccountKey(key)
          ? [{ key, ttlMs: account.memoryMs, sliding: true }]
          : key.startsWith('client:')
            ? [{ key, ttlMs: client.windowMs }]
            : [],
      )
      return counters.attempt(
        'sign-in throttle',
        async () => {
          if (hits.length > 0) await counters.hit(scope, hits, clock.now())
        },
        () => local.fail(keys),
      )
    },
    reset(key) {
      return counters.attempt(
        'sign-in throttle',
        async () => {
          await counters.forget(scope, [key])
          // The process may have counted this key while the database was away.
          await local.reset(key)
        },
        () => local.reset(key),
      )
    },
  }
}

/** "8 seconds", "3 minutes", "2 hours": a wait as people say it, rounded up. */
export function describeWait(seconds: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`
  if (seconds < 60) return plural(Math.max(1, Math.ceil(seconds)), 'second')
  if (seconds < 2 * 3600) return plural(Math.ceil(seconds / 60), 'minute')
  return plural(Math.ceil(seconds / 3600), 'hour')
}

/**
 * Refuses with `rate_limited` (429, Retry-After, and a sentence saying when to try again) while
 * the account is in back-off or the client is over its limit.
 */
export async function enforceThrottle(
  throttle: SignInThrottle,
  keys: readonly string[],
): Promise<void> {
  const decision = await throttle.check(keys)
  if (decision.allowed) return
  const when = describeWait(decision.retryAfterSeconds)
  throw new ApiError('rate_limited', {
    message:
      decision.limit === 'account'
        ? `Too many wrong passwords for this account. Wait ${when}, then try again.`
        : `Too many failed sign-ins from your network. Wait ${when}, then try again.`,
    details: { retryAfterSeconds: decision.retryAfterSeconds, limit: decision.limit },
  })
}
