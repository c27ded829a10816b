import type { Clock } from '../../platform/clock.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'

/**
 * Browsers that have signed in to an account with its password before, by a random token in a
 * cookie. Such a browser is not held back by the account's back-off (only by its own, and by
 * its address's limit), so an attacker who keeps an account in back-off does not keep its owner
 * out. In memory, like the throttle: a restart forgets them, and the owner waits out the back-off.
 */
export interface KnownDevices {
  /** Notes that the browser holding `token` signed in to `account`. */
  remember(account: string, token: string): Promise<void>
  /** Whether the browser holding `token` signed in to `account` within the lifetime. */
  knows(account: string, token: string | undefined): Promise<boolean>
}

export function createKnownDevices(options: {
  clock: Clock
  lifetimeMs: number
  /** The most accounts tracked; the one that signed in longest ago makes room. */
  maxAccounts?: number
  /** The most browsers per account; the one that signed in longest ago makes room. */
  maxPerAccount?: number
}): KnownDevices {
  const { clock, lifetimeMs } = options
  const maxAccounts = options.maxAccounts ?? 10_000
  const maxPerAccount = options.maxPerAccount ?? 10
  const accounts = new Map<string, Map<string, number>>()

  return {
    async remember(account, token) {
      const devices = accounts.get(account) ?? new Map<string, number>()
      // Re-inserted, so insertion order is the order of the latest sign-ins.
      accounts.delete(account)
      if (accounts.size >= maxAccounts) {
        const oldest = accounts.keys().next()
        if (!oldest.done) accounts.delete(oldest.value)
      }
      devices.delete(token)
      if (devices.size >= maxPerAccount) {
        const oldest = devices.keys().next()
        if (!oldest.done) devices.delete(oldest.value)
      }
      devices.set(token, clock.now() + lifetimeMs)
      accounts.set(account, devices)
    },
    async knows(account, token) {
      if (token === undefined) return false
      const expiresAt = accounts.get(account)?.get(token)
      return expiresAt !== undefined && clock.now() < expiresAt
    },
  }
}

/**
 * The same, shared by every BFF replica (platform/shared-counters.ts: one row per account and
 * browser, its expiry sliding with each sign-in), so a browser known to one replica is known to
 * all. While the database fails or is slow, this process's own memory answers (with a warning):
 * a browser it does not know waits out the account's back-off, which is stricter, never looser.
 */
export function createSharedKnownDevices(options: {
  clock: Clock
  lifetimeMs: number
  counters: SharedCounters
}): KnownDevices {
  const { clock, lifetimeMs, counters } = options
  const local = createKnownDevices(options)
  const scope = 'known-device'
  // A newline cannot be in an email address nor in a device token (auth-routes.ts checks both).
  const keyOf = (account: string, token: string) => `${account}\n${token}`
  return {
    remember(account, token) {
      return counters.attempt(
        'known devices',
        async () => {
          await counters.hit(
            scope,
            [{ key: keyOf(account, token), ttlMs: lifetimeMs, sliding: true }],
            clock.now(),
          )
          // Known here too, should the database be away at the next sign-in.
          await local.remember(account, token)
        },
        () => local.remember(account, token),
      )
    },
    async knows(account, token) {
      if (token === undefined) return false
      return counters.attempt(
        'known devices',
        async () => (await counters.read(scope, [keyOf(account, token)], clock.now())).length > 0,
        () => local.knows(account, token),
      )
    },
  }
}
