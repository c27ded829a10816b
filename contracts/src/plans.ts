import { z } from 'zod/mini'
import {
  assistantModels,
  planIds,
  planList,
  plans,
  type AssistantModel,
  type Plan,
  type PlanId,
} from './plan-values.ts'

export * from './plan-values.ts'

export const planIdSchema = z.enum(planIds)

/**
 * The monthly prices Stripe must sell for the paid plans, found there by `lookupKey`: what the
 * Stripe stand-in is seeded with (the stack, the tests, the webhook benchmark). Marked pure, so
 * bundles that do not use it (the remotes) drop it.
 */
export const stripePrices = /* @__PURE__ */ planList.flatMap((plan) =>
  plan.lookupKey === null
    ? []
    : [
        {
          lookupKey: plan.lookupKey,
          productName: `Tessera ${plan.name}`,
          unitAmount: plan.monthlyPrice,
          currency: plan.currency,
          interval: 'month' as const,
        },
      ],
)

/** The plan a Stripe price's `lookup_key` stands for; null for a price we do not sell. */
export function planForLookupKey(lookupKey: string | null | undefined): Plan | null {
  return planList.find((plan) => plan.lookupKey !== null && plan.lookupKey === lookupKey) ?? null
}

/** Stripe subscription statuses (all of them: a webhook may carry any). */
export const subscriptionStatuses = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'paused',
] as const
export type SubscriptionStatus = (typeof subscriptionStatuses)[number]

/**
 * Statuses that keep the paid plan. `past_due` keeps it while Stripe retries the payment (the
 * user sees a banner to fix it); `unpaid`, `canceled` and the rest fall back to free.
 */
const grantingStatuses: ReadonlySet<SubscriptionStatus> = new Set([
  'trialing',
  'active',
  'past_due',
])

/**
 * The workspace entitlements are answered for (the session's current one): its kind, the
 * caller's role in it and its seats (1 for a personal workspace or a team without a per-seat
 * subscription that grants access).
 */
export const entitlementsWorkspaceSchema = z.object({
  id: z.string(),
  kind: z.enum(['personal', 'team']),
  role: z.enum(['owner', 'admin', 'member']),
  seats: z.int().check(z.positive()),
})
export type EntitlementsWorkspace = z.infer<typeof entitlementsWorkspaceSchema>

/** What a user's plan allows, as `GET /api/me` reports it and every remote reads it. */
export const entitlementsSchema = z.object({
  plan: planIdSchema,
  planName: z.string(),
  /** The subscription's status; null without a subscription (free). */
  status: z.nullable(z.enum(subscriptionStatuses)),
  /** Payment failed and Stripe is retrying: show the "fix payment" banner. */
  pastDue: z.boolean(),
  monthlyTokens: z.int().check(z.nonnegative()),
  models: z.array(z.enum(assistantModels)).check(z.minLength(1)),
  defaultModel: z.enum(assistantModels),
  /**
   * The workspace these entitlements are for; absent or null from older BFFs (read as the
   * user's personal workspace). For a team, `monthlyTokens` is the pool: plan tokens × seats.
   */
  workspace: z.optional(z.nullable(entitlementsWorkspaceSchema)),
})
export type Entitlements = z.infer<typeof entitlementsSchema>

/** The subscription facts entitlements depend on (the BFF's stored row, or nothing). */
export interface SubscriptionFacts {
  plan: PlanId
  status: SubscriptionStatus
}

/**
 * The one derivation of entitlements from a subscription: the BFF calls nothing else. With a
 * workspace, its seats multiply the plan's tokens (a team's pool); without, `workspace` is absent.
 */
export function entitlementsOf(
  subscription: SubscriptionFacts | null,
  workspace?: EntitlementsWorkspace | null,
): Entitlements {
  const granted =
    subscription !== null && grantingStatuses.has(subscription.status)
      ? plans[subscription.plan]
      : plans.free
  return {
    plan: granted.id,
    planName: granted.name,
    status: subscription?.status ?? null,
    pastDue: subscription?.status === 'past_due',
    monthlyTokens: granted.limits.monthlyTokens * (workspace?.seats ?? 1),
    models: [...granted.limits.models],
    defaultModel: granted.limits.models[0],
    ...(workspace === undefined ? {} : { workspace }),
  }
}

/** The live event type on `/api/events` that carries a user's new entitlements. */
export const ENTITLEMENTS_EVENT_TYPE = 'entitlements'

/**
 * `data` of an `entitlements` live event, sent to every tab of the user when the plan or the
 * subscription status changes (a webhook applied, reconcile repaired a row).
 */
export const entitlementsEventDataSchema = z.object({ entitlements: entitlementsSchema })
export type EntitlementsEventData = z.infer<typeof entitlementsEventDataSchema>

/**
 * Whether a plan's sends take the model lane kept for paying plans (docs/decisions/028): what the
 * pricing page's "Priority answers" line sells, so the line and the behaviour cannot part.
 */
export function hasPriorityAnswers(plan: PlanId): boolean {
  return plans[plan].features.includes('Priority answers')
}

/** The first plan (in the pricing page's order) that includes a model: the one to upgrade to. */
export function planWithModel(model: AssistantModel): Plan | null {
  return planList.find((plan) => plan.limits.models.includes(model)) ?? null
}
