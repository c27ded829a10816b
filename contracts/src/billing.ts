import { z } from 'zod'
import {
  assistantModels,
  entitlementsSchema,
  planIdSchema,
  planIds,
  subscriptionStatuses,
} from './plans.ts'

/** A plan as the pricing page shows it (`GET /api/billing/plans`). */
export const planViewSchema = z.object({
  id: planIdSchema,
  name: z.string(),
  tagline: z.string(),
  /** Monthly price in cents; 0 for free. Per seat when `perSeat`. */
  monthlyPrice: z.number().int().nonnegative(),
  /** Billed per seat (the subscription's quantity is the number of seats). */
  perSeat: z.boolean(),
  /** The fewest seats the plan is sold with; 1 when not per seat. */
  minSeats: z.number().int().positive(),
  currency: z.string(),
  /** Tokens a month; per seat when `perSeat` (a workspace's pool is this × its seats). */
  monthlyTokens: z.number().int().nonnegative(),
  models: z.array(z.enum(assistantModels)),
  features: z.array(z.string()),
})
export type PlanView = z.infer<typeof planViewSchema>

/** `GET /api/billing/plans`: every plan, and the visitor's current one (null when signed out). */
export const plansResponseSchema = z.object({
  plans: z.array(planViewSchema),
  current: planIdSchema.nullable(),
})
export type PlansResponse = z.infer<typeof plansResponseSchema>

/** The user's subscription as the billing page shows it; dates are ISO 8601. */
export const subscriptionViewSchema = z.object({
  plan: planIdSchema,
  status: z.enum(subscriptionStatuses),
  /** When the current period ends: the next renewal, or the end of access when cancelling. */
  currentPeriodEnd: z.string().nullable(),
  /** Set when the plan is cancelled at the end of the period (access continues until then). */
  cancelAt: z.string().nullable(),
  canceledAt: z.string().nullable(),
})
export type SubscriptionView = z.infer<typeof subscriptionViewSchema>

/**
 * `GET /api/billing/subscription`: `subscription` is null on the free plan (never subscribed, or
 * the subscription ended); `entitlements.status` still names an ended one's status.
 */
export const subscriptionResponseSchema = z.object({
  subscription: subscriptionViewSchema.nullable(),
  entitlements: entitlementsSchema,
})
export type SubscriptionResponse = z.infer<typeof subscriptionResponseSchema>

/** Paid plans a checkout can be started for. */
export const paidPlanIds = planIds.filter((id) => id !== 'free') as ['pro', 'team']

/** `POST /api/billing/checkout`. */
export const checkoutBodySchema = z.strictObject({
  plan: z.enum(paidPlanIds, { error: 'Choose a paid plan: pro or team.' }),
})
export type CheckoutBody = z.infer<typeof checkoutBodySchema>

/** Answer of `POST /api/billing/checkout` and `POST /api/billing/portal`: where to send the browser. */
export const redirectResponseSchema = z.object({ url: z.string() })
export type RedirectResponse = z.infer<typeof redirectResponseSchema>

/** A Stripe Checkout Session id, as the return page gets it in `?session_id=`. */
export const checkoutSessionIdSchema = z
  .string()
  .regex(/^cs_[A-Za-z0-9_]{1,250}$/, 'This is not a checkout session id.')

/**
 * `GET /api/billing/checkout/:sessionId`, polled by the return page. `confirmed` turns true only
 * once the webhook has been applied: the redirect alone never grants access. A session of
 * another user, or none, is `not_found`.
 */
export const checkoutStatusSchema = z.object({
  /** Stripe's: `open` until paid (a declined card leaves it open), `expired` when abandoned. */
  status: z.enum(['open', 'complete', 'expired']),
  confirmed: z.boolean(),
  /** The plan this checkout is for. */
  plan: planIdSchema,
  /** The user's entitlements now (what `confirmed` is judged by). */
  entitlements: entitlementsSchema,
})
export type CheckoutStatus = z.infer<typeof checkoutStatusSchema>

/** The live event type carrying the user's subscription after every applied change. */
export const SUBSCRIPTION_EVENT_TYPE = 'billing.subscription'

export const subscriptionEventDataSchema = subscriptionResponseSchema
export type SubscriptionEventData = z.infer<typeof subscriptionEventDataSchema>

/** `POST /api/billing/webhook`'s answer to Stripe: what the delivery did. */
export const webhookOutcomes = [
  'applied',
  'refetched',
  'unchanged',
  'stale',
  'ignored',
  'unknown_customer',
  'invalid',
  'duplicate',
] as const
export const webhookAckSchema = z.object({
  received: z.literal(true),
  eventId: z.string(),
  outcome: z.enum(webhookOutcomes),
})
export type WebhookAck = z.infer<typeof webhookAckSchema>

/** `POST /api/billing/reconcile` (operators, signed; see docs/decisions/007). */
export const reconcileBodySchema = z.strictObject({
  /** Report the drift without repairing it. */
  dryRun: z.boolean().default(false),
})

export const driftKinds = [
  'missing_customer_row',
  'duplicate_customer',
  'missing_subscription_row',
  'subscription_mismatch',
  'not_at_stripe',
  'unknown_customer',
] as const

/** What reconcile found and repaired. */
export const reconcileReportSchema = z.object({
  dryRun: z.boolean(),
  customersAtStripe: z.number().int(),
  subscriptionsAtStripe: z.number().int(),
  rowsChecked: z.number().int(),
  drift: z.array(
    z.object({
      kind: z.enum(driftKinds),
      customerId: z.string(),
      subscriptionId: z.string().optional(),
      userId: z.string().optional(),
      fields: z
        .array(
          z.object({
            field: z.string(),
            stored: z.string().nullable(),
            stripe: z.string().nullable(),
          }),
        )
        .optional(),
      fixed: z.boolean(),
    }),
  ),
  fixed: z.number().int(),
  startedAt: z.string(),
  finishedAt: z.string(),
})
export type ReconcileReport = z.infer<typeof reconcileReportSchema>
