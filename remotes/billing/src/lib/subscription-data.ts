import type { SubscriptionResponse } from '@tessera/contracts/billing'
import type { Entitlements } from '@tessera/contracts/plans'

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

/** Whether a value has the shape of entitlements (a light check: the BFF validated it). */
export function isEntitlements(value: unknown): value is Entitlements {
  return (
    isRecord(value) &&
    typeof value.plan === 'string' &&
    typeof value.planName === 'string' &&
    typeof value.pastDue === 'boolean'
  )
}

/**
 * Whether a `billing.subscription` event carries what `GET /api/billing/subscription` returns.
 * Events come from the BFF, which builds them from the contracts; this only keeps a malformed one
 * from breaking the page.
 */
export function isSubscriptionResponse(value: unknown): value is SubscriptionResponse {
  if (!isRecord(value) || !isEntitlements(value.entitlements)) return false
  const subscription = value.subscription
  return (
    subscription === null ||
    (isRecord(subscription) &&
      typeof subscription.plan === 'string' &&
      typeof subscription.status === 'string')
  )
}
