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
  /** Monthly price in cents; 0 for free. */
  monthlyPrice: z.number().int().nonnegative(),
  currency: z.string(),
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

/** `GET /api/billing/subscription`: null subscription on the free plan. */
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

/**
 * `GET /api/billing/checkout/:sessionId`, polled by the return page. `confirmed` turns true only
 * once the webhook has been applied: the redirect alone never grants access.
 */
export const checkoutStatusSchema = z.object({
  status: z.enum(['open', 'complete', 'expired']),
  confirmed: z.boolean(),
  plan: planIdSchema,
  entitlements: entitlementsSchema,
})
export type CheckoutStatus = z.infer<typeof checkoutStatusSchema>

/** The live event type carrying the user's subscription after every applied change. */
export const SUBSCRIPTION_EVENT_TYPE = 'billing.subscription'

export const subscriptionEventDataSchema = subscriptionResponseSchema
export type SubscriptionEventData = z.infer<typeof subscriptionEventDataSchema>
