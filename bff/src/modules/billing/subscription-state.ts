import {
  entitlementsOf,
  planForLookupKey,
  planList,
  subscriptionStatuses,
} from '@tessera/contracts'
import type {
  Entitlements,
  PlanId,
  PlanView,
  SubscriptionResponse,
  SubscriptionStatus,
  SubscriptionView,
} from '@tessera/contracts'
import { z } from 'zod/mini'
import type { BillingSubscriptionRow } from '../../platform/db/schema.ts'

/**
 * The part of a Stripe subscription object the BFF keeps. Webhook payloads and API answers are
 * checked against it: a shape we do not understand is refused, never half-applied.
 */
export const stripeSubscriptionSchema = z.object({
  id: z.string().check(z.startsWith('sub_')),
  object: z.literal('subscription'),
  customer: z.union([z.string(), z.object({ id: z.string() })]),
  status: z.enum(subscriptionStatuses),
  created: z.int(),
  cancel_at: z.optional(z.nullable(z.int())),
  cancel_at_period_end: z.optional(z.boolean()),
  canceled_at: z.optional(z.nullable(z.int())),
  // A team's subscription names its workspace (set by the BFF at checkout).
  metadata: z.optional(z.nullable(z.record(z.string(), z.string()))),
  items: z.object({
    data: z.array(
      z.object({
        // Since API version 2025-03-31 the period lives on the item, not the subscription.
        current_period_end: z.optional(z.nullable(z.int())),
        price: z.object({ id: z.string(), lookup_key: z.optional(z.nullable(z.string())) }),
        // Seats of a per-seat plan. Absent only on metered prices, which Tessera does not sell.
        quantity: z.optional(z.nullable(z.int().check(z.positive()))),
      }),
    ),
  }),
})
export type StripeSubscription = z.infer<typeof stripeSubscriptionSchema>

/** The columns of `billing_subscriptions` that mirror Stripe (everything but bookkeeping). */
export interface SubscriptionState {
  stripeSubscriptionId: string
  stripeCustomerId: string
  plan: PlanId
  stripePriceId: string | null
  /** The item's quantity: seats of a per-seat plan, 1 otherwise. */
  quantity: number
  /**
   * The team workspace it pays for (metadata.workspace_id); null: the buyer's personal one. A
   * metadata value that is not a workspace's id is dropped before the state is stored
   * (`resolveWorkspace` in team-store.ts).
   */
  workspaceId: string | null
  status: SubscriptionStatus
  currentPeriodEnd: Date | null
  cancelAt: Date | null
  canceledAt: Date | null
  stripeCreatedAt: Date
}

const fromUnix = (seconds: number | null | undefined): Date | null =>
  seconds === null || seconds === undefined ? null : new Date(seconds * 1000)

export function customerIdOf(customer: StripeSubscription['customer']): string {
  return typeof customer === 'string' ? customer : customer.id
}

/** What a Stripe subscription means for Tessera: its plan (by the price's lookup key) and dates. */
export function stateOf(subscription: StripeSubscription): SubscriptionState {
  const item = subscription.items.data[0]
  const periodEnd = fromUnix(item?.current_period_end)
  // A price we do not sell grants nothing: stored as the free plan.
  const plan = planForLookupKey(item?.price.lookup_key)?.id ?? 'free'
  return {
    stripeSubscriptionId: subscription.id,
    stripeCustomerId: customerIdOf(subscription.customer),
    plan,
    stripePriceId: item?.price.id ?? null,
    quantity: item?.quantity ?? 1,
    workspaceId: subscription.metadata?.workspace_id ?? null,
    status: subscription.status,
    currentPeriodEnd: periodEnd,
    // Older API versions leave cancel_at empty when cancelling at the period end.
    cancelAt:
      fromUnix(subscription.cancel_at) ??
      (subscription.cancel_at_period_end === true ? periodEnd : null),
    canceledAt: fromUnix(subscription.canceled_at),
    stripeCreatedAt: new Date(subscription.created * 1000),
  }
}

/** The state a stored row holds. */
export function stateOfRow(row: BillingSubscriptionRow): SubscriptionState {
  return {
    stripeSubscriptionId: row.stripe_subscription_id,
    stripeCustomerId: row.stripe_customer_id,
    plan: row.plan,
    stripePriceId: row.stripe_price_id,
    quantity: row.quantity,
    workspaceId: row.workspace_id,
    status: row.status,
    currentPeriodEnd: row.current_period_end,
    cancelAt: row.cancel_at,
    canceledAt: row.canceled_at,
    stripeCreatedAt: row.stripe_created_at,
  }
}

const time = (date: Date | null): number | null => (date === null ? null : date.getTime())

/** The fields of `b` that differ from `a` (the drift reconcile reports, the change a webhook made). */
export function differences(a: SubscriptionState, b: SubscriptionState): string[] {
  const changed: string[] = []
  if (a.plan !== b.plan) changed.push('plan')
  if (a.status !== b.status) changed.push('status')
  if (a.stripePriceId !== b.stripePriceId) changed.push('price')
  if (a.quantity !== b.quantity) changed.push('quantity')
  if (a.workspaceId !== b.workspaceId) changed.push('workspace')
  if (time(a.currentPeriodEnd) !== time(b.currentPeriodEnd)) changed.push('currentPeriodEnd')
  if (time(a.cancelAt) !== time(b.cancelAt)) changed.push('cancelAt')
  if (time(a.canceledAt) !== time(b.canceledAt)) changed.push('canceledAt')
  if (a.stripeCustomerId !== b.stripeCustomerId) changed.push('customer')
  return changed
}

const grantingStatuses: ReadonlySet<SubscriptionStatus> = new Set([
  'trialing',
  'active',
  'past_due',
])

/**
 * The subscription that decides a user's plan among all of theirs (a user who cancelled and
 * subscribed again has two): one that grants access, else the newest.
 */
export function currentSubscription<T extends SubscriptionState>(states: readonly T[]): T | null {
  let best: T | null = null
  for (const state of states) {
    if (best === null) {
      best = state
      continue
    }
    const grants = grantingStatuses.has(state.status)
    const bestGrants = grantingStatuses.has(best.status)
    if (grants !== bestGrants) {
      if (grants) best = state
      continue
    }
    if (state.stripeCreatedAt.getTime() > best.stripeCreatedAt.getTime()) best = state
  }
  return best
}

/**
 * The subscription of the user's personal workspace: among theirs that pay for no team (a team's
 * subscription grants its workspace, not its buyer's personal one).
 */
export function personalSubscription<T extends SubscriptionState>(states: readonly T[]): T | null {
  return currentSubscription(states.filter((state) => state.workspaceId === null))
}

export function entitlementsOfState(state: SubscriptionState | null): Entitlements {
  return entitlementsOf(state === null ? null : { plan: state.plan, status: state.status })
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString())

/** `GET /api/billing/subscription` (and the live event): no subscription on the free plan. */
export function subscriptionResponseOf(current: SubscriptionState | null): SubscriptionResponse {
  const entitlements = entitlementsOfState(current)
  const subscription: SubscriptionView | null =
    current === null || entitlements.plan === 'free'
      ? null
      : {
          plan: current.plan,
          status: current.status,
          currentPeriodEnd: iso(current.currentPeriodEnd),
          cancelAt: iso(current.cancelAt),
          canceledAt: iso(current.canceledAt),
        }
  return { subscription, entitlements }
}

/** The plans as `GET /api/billing/plans` shows them. */
export const planViews: PlanView[] = planList.map((plan) => ({
  id: plan.id,
  name: plan.name,
  tagline: plan.tagline,
  monthlyPrice: plan.monthlyPrice,
  perSeat: plan.perSeat,
  minSeats: plan.minSeats,
  currency: plan.currency,
  monthlyTokens: plan.limits.monthlyTokens,
  models: [...plan.limits.models],
  features: [...plan.features],
}))
