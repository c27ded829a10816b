import type { Clock } from '../../platform/clock.ts'

/**
 * Browsers that have signed in to an account with its password before, by a random token in a
 * cookie. Such a browser is not held back by the account's back-off (only by its own, and by
 * its address's limit), so an attacker who keeps an account in back-off does not keep its owner
 * out. In memory, like the throttle: a restart forgets them, and the owner waits out the back-off.
 */
export interface KnownDevices {
  /** Notes that the browser holding `token` signed in to `account`. */
  remember(account: string, token: string): void
  /** Whether the browser holding `token` signed in to `account` within the lifetime. */
  knows(account: string, token: string | undefined): boolean
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
    remember(account, token) {
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
    knows(account, token) {
      if (token === undefined) return false
      const expiresAt = accounts.get(account)?.get(token)
      return expiresAt !== undefined && clock.now() < expiresAt
    },
  }
}
