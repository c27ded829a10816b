// What every part of the engine shares: the state it works on, the emulated clock, and the small
// helpers that several resources use. The parts are functions of an `EngineCore` so that the state
// can be swapped (reset, load) without any part holding on to the old one.
import type { Metadata, StripeEvent, Subscription, SubscriptionStatus } from '../objects.ts'
import type { SeedPrice } from '../seed.ts'
import type { StripeState } from '../state.ts'

/** What caused a change: the API request (its id and idempotency key), or nothing (the clock). */
export interface Origin {
  requestId: string | null
  idempotencyKey: string | null
}

export const AUTOMATIC: Origin = { requestId: null, idempotencyKey: null }

export interface EngineOptions {
  apiVersion: string
  accountName: string
  seed: readonly SeedPrice[]
  onEvent: (event: StripeEvent) => void
}

export interface EngineCore {
  readonly state: StripeState
  readonly options: EngineOptions
  /** When events were last pruned, and in which state: once per emulated second is enough. */
  pruned: { at: number; state: StripeState } | null
  /** Emulated unix time. */
  now(): number
}

export const LIVE_STATUSES: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due']

export function clone<T>(value: T): T {
  return structuredClone(value)
}

export function applyMetadata(
  target: Metadata,
  update: '' | Record<string, string> | undefined,
): Metadata {
  if (update === undefined) return target
  if (update === '') return {}
  const next = { ...target }
  // An empty value unsets that key, as in Stripe.
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete next[k]
    else next[k] = v
  }
  return next
}

/** When the subscription's current period ends (its first item's, as all items share it). */
export function currentPeriodEnd(sub: Subscription): number {
  return sub.items.data[0]?.current_period_end ?? sub.created
}
