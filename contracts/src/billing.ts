import { z } from 'zod/mini'
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
  monthlyPrice: z.int().check(z.nonnegative()),
  /** Billed per seat (the subscription's quantity is the number of seats). */
  perSeat: z.boolean(),
  /** The fewest seats the plan is sold with; 1 when not per seat. */
  minSeats: z.int().check(z.positive()),
  currency: z.string(),
  /** Tokens a month; per seat when `perSeat` (a workspace's pool is this × its seats). */
  monthlyTokens: z.int().check(z.nonnegative()),
  models: z.array(z.enum(assistantModels)),
  features: z.array(z.string()),
})
export type PlanView = z.infer<typeof planViewSchema>

/** `GET /api/billing/plans`: every plan, and the visitor's current one (null when signed out). */
export const plansResponseSchema = z.object({
  plans: z.array(planViewSchema),
  current: z.nullable(planIdSchema),
})
export type PlansResponse = z.infer<typeof plansResponseSchema>

/** The user's subscription as the billing page shows it; dates are ISO 8601. */
export const subscriptionViewSchema = z.object({
  plan: planIdSchema,
  status: z.enum(subscriptionStatuses),
  /** When the current period ends: the next renewal, or the end of access when cancelling. */
  currentPeriodEnd: z.nullable(z.string()),
  /** Set when the plan is cancelled at the end of the period (access continues until then). */
  cancelAt: z.nullable(z.string()),
  canceledAt: z.nullable(z.string()),
  /** Seats of a per-seat plan (the subscription's quantity); absent for other plans. */
  seats: z.optional(z.int().check(z.positive())),
})
export type SubscriptionView = z.infer<typeof subscriptionViewSchema>

/**
 * `GET /api/billing/subscription`: `subscription` is null on the free plan (never subscribed, or
 * the subscription ended); `entitlements.status` still names an ended one's status.
 */
export const subscriptionResponseSchema = z.object({
  subscription: z.nullable(subscriptionViewSchema),
  entitlements: entitlementsSchema,
})
export type SubscriptionResponse = z.infer<typeof subscriptionResponseSchema>

/** Paid plans a checkout can be started for. */
export const paidPlanIds = planIds.filter((id) => id !== 'free') as ['pro', 'team']

/**
 * `POST /api/billing/checkout`. The Team plan is bought for a team workspace (`workspaceId`, or
 * the session's current workspace when absent) by one of its owners or admins; Pro for the
 * buyer's personal workspace.
 */
export const checkoutBodySchema = z.strictObject({
  plan: z.enum(paidPlanIds, { error: 'Choose a paid plan: pro or team.' }),
  workspaceId: z.optional(z.uuid({ error: 'A workspace is named by its id, a UUID.' })),
})
export type CheckoutBody = z.infer<typeof checkoutBodySchema>

/** Answer of `POST /api/billing/checkout` and `POST /api/billing/portal`: where to send the browser. */
export const redirectResponseSchema = z.object({ url: z.string() })
export type RedirectResponse = z.infer<typeof redirectResponseSchema>

/** A Stripe Checkout Session id, as the return page gets it in `?session_id=`. */
export const checkoutSessionIdSchema = z
  .string()
  .check(z.regex(/^cs_[A-Za-z0-9_]{1,250}$/, 'This is not a checkout session id.'))

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

/** `GET /api/billing/seats/preview?quantity=N`: the seats to price (owners and admins of a team). */
export const seatPreviewQuerySchema = z.strictObject({
  quantity: z.coerce
    .number({ error: 'The number of seats is a whole number.' })
    .check(
      z.int('The number of seats is a whole number.'),
      z.gte(1, 'A team has at least one seat.'),
      z.lte(10_000, 'A subscription has at most 10000 seats.'),
    ),
})

/** One line of the next invoice; amounts in cents (negative: a credit). */
export const seatPreviewLineSchema = z.object({
  description: z.nullable(z.string()),
  amount: z.int(),
  quantity: z.nullable(z.int()),
  proration: z.boolean(),
  periodStart: z.string(),
  periodEnd: z.string(),
})

/** What changing the team's seats to `quantity` costs, and its next invoice. */
export const seatPreviewSchema = z.object({
  seats: z.int().check(z.positive()),
  quantity: z.int().check(z.positive()),
  members: z.int().check(z.nonnegative()),
  prorationAmount: z.int(),
  nextInvoiceTotal: z.int(),
  currency: z.string(),
  lines: z.array(seatPreviewLineSchema),
})
export type SeatPreview = z.infer<typeof seatPreviewSchema>

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
  dryRun: z._default(z.boolean(), false),
})

export const driftKinds = [
  'missing_customer_row',
  'duplicate_customer',
  'missing_subscription_row',
  'subscription_mismatch',
  'not_at_stripe',
  'unknown_customer',
  /** A team's seats differ from its member count (at least the plan's minimum). */
  'seat_mismatch',
] as const

/** What reconcile found and repaired. */
export const reconcileReportSchema = z.object({
  dryRun: z.boolean(),
  customersAtStripe: z.int(),
  subscriptionsAtStripe: z.int(),
  rowsChecked: z.int(),
  drift: z.array(
    z.object({
      kind: z.enum(driftKinds),
      customerId: z.string(),
      subscriptionId: z.optional(z.string()),
      userId: z.optional(z.string()),
      fields: z.optional(
        z.array(
          z.object({
            field: z.string(),
            stored: z.nullable(z.string()),
            stripe: z.nullable(z.string()),
          }),
        ),
      ),
      /** `seat_mismatch`: the team, its seats, members and the seats it should have. */
      workspaceId: z.optional(z.string()),
      seats: z.optional(
        z.object({
          quantity: z.int(),
          members: z.int(),
          target: z.int(),
        }),
      ),
      fixed: z.boolean(),
      /** Why a repair failed (it is tried again by the next run). */
      error: z.optional(z.string()),
    }),
  ),
  fixed: z.int(),
  startedAt: z.string(),
  finishedAt: z.string(),
})
export type ReconcileReport = z.infer<typeof reconcileReportSchema>
