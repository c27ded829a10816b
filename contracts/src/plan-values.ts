// Plain values of the plan catalogue, with no zod: pages that only show the plans (the host's
// landing page, in its first chunk) import them from `@tessera/contracts/plan-values` without
// bundling the schemas. `plans.ts` re-exports them.
import { attachmentFeature } from './attachment-values.ts'
import type { AttachmentLimits } from './attachment-values.ts'

/**
 * The plan catalogue: the one place plans, prices and limits are defined. The BFF derives
 * entitlements from it, the Stripe stand-in is seeded from it, and remotes show it.
 */
export const planIds = ['free', 'pro', 'team'] as const
export type PlanId = (typeof planIds)[number]

/** Models the assistant can use; the first a plan lists is its default. */
export const assistantModels = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1'] as const
export type AssistantModel = (typeof assistantModels)[number]

export interface Plan {
  id: PlanId
  name: string
  /** One line for the pricing page. */
  tagline: string
  /**
   * Monthly price in the smallest currency unit (cents); 0 for free. For a per-seat plan
   * (`perSeat`), the price of one seat: the bill is this × the subscription's quantity.
   */
  monthlyPrice: number
  /** Billed per seat: the Stripe subscription item's quantity is the number of seats. */
  perSeat: boolean
  /** The fewest seats the plan is sold with (1 for plans that are not per seat). */
  minSeats: number
  currency: 'usd'
  /** The Stripe price's `lookup_key`; null for the free plan, which has no price. */
  lookupKey: string | null
  limits: {
    /**
     * AI tokens (prompt + completion) per calendar month, UTC. For a per-seat plan, per seat:
     * the workspace's pool is this × its seats.
     */
    monthlyTokens: number
    /** Models allowed; the first is the default. */
    models: readonly [AssistantModel, ...AssistantModel[]]
    /** Files sent to the assistant (checked by the BFF on upload and on send). */
    attachments: AttachmentLimits
  }
  /** Short feature lines for the pricing page, beyond the limits above. */
  features: readonly string[]
}

/** Attachment allowances; the pricing page's line for each is made from the same numbers. */
const attachmentLimits = {
  free: { perMessage: 2, fileBytes: 2_000_000, monthlyBytes: 20_000_000 },
  pro: { perMessage: 5, fileBytes: 10_000_000, monthlyBytes: 500_000_000 },
  team: { perMessage: 10, fileBytes: 20_000_000, monthlyBytes: 2_000_000_000 },
} as const satisfies Record<PlanId, AttachmentLimits>

export const plans: Readonly<Record<PlanId, Plan>> = {
  free: {
    id: 'free',
    name: 'Free',
    tagline: 'Try the assistant.',
    monthlyPrice: 0,
    perSeat: false,
    minSeats: 1,
    currency: 'usd',
    lookupKey: null,
    limits: {
      monthlyTokens: 50_000,
      models: ['gpt-4o-mini'],
      attachments: attachmentLimits.free,
    },
    features: ['Conversation history', attachmentFeature(attachmentLimits.free)],
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    tagline: 'For daily work.',
    monthlyPrice: 1500,
    perSeat: false,
    minSeats: 1,
    currency: 'usd',
    lookupKey: 'tessera_pro_monthly',
    limits: {
      monthlyTokens: 1_000_000,
      models: ['gpt-4o', 'gpt-4o-mini'],
      attachments: attachmentLimits.pro,
    },
    features: ['Conversation history', attachmentFeature(attachmentLimits.pro), 'Priority answers'],
  },
  team: {
    id: 'team',
    name: 'Team',
    tagline: 'For teams, billed per seat.',
    monthlyPrice: 1500,
    perSeat: true,
    minSeats: 2,
    currency: 'usd',
    lookupKey: 'tessera_team_monthly',
    limits: {
      monthlyTokens: 5_000_000,
      models: ['gpt-4.1', 'gpt-4o', 'gpt-4o-mini'],
      attachments: attachmentLimits.team,
    },
    features: [
      'Conversation history',
      attachmentFeature(attachmentLimits.team),
      'Priority answers',
      'The largest model',
    ],
  },
}

/** Plans in the order the pricing page shows them. */
export const planList: readonly Plan[] = planIds.map((id) => plans[id])
