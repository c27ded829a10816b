// Seats of a per-seat subscription (the Team plan): the quantity of its one Stripe subscription
// item. Changing it prorates (`create_prorations`: the difference lands on the next invoice);
// a preview shows what that would cost before it is made. No route here: the workspace code
// calls these when members come and go, retrying what `SeatChangeError.transient` allows.
import { planForLookupKey } from '@tessera/contracts'
import type Stripe from 'stripe'
import { z } from 'zod/mini'
import { isStripeTransient } from './stripe-client.ts'

/** The most seats one subscription takes (the Stripe stand-in's limit too). */
export const MAX_SEATS = 10_000

export type SeatChangeFailure =
  /** Not a whole number from 1 to MAX_SEATS. */
  | 'invalid_quantity'
  /** Fewer seats than the plan is sold with (Team: 2). */
  | 'below_minimum'
  /** The subscription's price is not sold per seat: its quantity stays 1. */
  | 'not_per_seat'
  /** The subscription has no item, or more than one: which one holds the seats is unclear. */
  | 'not_one_item'
  /** Stripe refused or failed; `transient` says whether trying again may help. */
  | 'stripe'

/** Why a seat change (or its preview) did not happen. */
export class SeatChangeError extends Error {
  constructor(
    readonly reason: SeatChangeFailure,
    /** Whether the same call, tried again later with the same key, may succeed. */
    readonly transient: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'SeatChangeError'
  }
}

export interface SeatChange {
  subscriptionId: string
  subscriptionItemId: string
  quantity: number
  previousQuantity: number
  /** False when the subscription already had this many seats (nothing was sent to Stripe). */
  changed: boolean
}

export interface SeatPreviewLine {
  description: string | null
  /** Cents; negative for a credit (unused time on the seats before the change). */
  amount: number
  quantity: number | null
  proration: boolean
  periodStart: Date
  periodEnd: Date
}

export interface SeatChangePreview {
  /**
   * The sum of the proration lines: what the change costs (negative: a credit), with any
   * prorations of earlier changes still waiting for the same invoice.
   */
  prorationAmount: number
  /** The whole next invoice: the prorations and the next period at the new quantity. */
  nextInvoiceTotal: number
  currency: string
  lines: SeatPreviewLine[]
  /** The time the prorations were worked out for; pass it to `setSeatQuantity` to match. */
  prorationDate: number | null
}

async function stripeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    const transient = isStripeTransient(error)
    const detail = error instanceof Error ? error.message : String(error)
    throw new SeatChangeError('stripe', transient, `${what} failed: ${detail}`, { cause: error })
  }
}

function checkQuantity(quantity: number): void {
  if (!Number.isSafeInteger(quantity) || quantity < 1 || quantity > MAX_SEATS) {
    throw new SeatChangeError(
      'invalid_quantity',
      false,
      `A seat count is a whole number from 1 to ${MAX_SEATS}; got ${quantity}.`,
    )
  }
}

/** The subscription's one item, checked against the plan the item's price stands for. */
async function seatItem(
  stripe: Stripe,
  subscriptionId: string,
  quantity: number,
): Promise<Stripe.SubscriptionItem> {
  checkQuantity(quantity)
  const subscription = await stripeCall('Reading the subscription', () =>
    stripe.subscriptions.retrieve(subscriptionId),
  )
  const [item, ...others] = subscription.items.data
  if (item === undefined || others.length > 0) {
    throw new SeatChangeError(
      'not_one_item',
      false,
      `The subscription ${subscriptionId} has ${subscription.items.data.length} items; seats need exactly one.`,
    )
  }
  const plan = planForLookupKey(item.price.lookup_key)
  if (plan !== null && !plan.perSeat && quantity !== 1) {
    throw new SeatChangeError(
      'not_per_seat',
      false,
      `The ${plan.name} plan is not sold per seat; its quantity stays 1.`,
    )
  }
  if (plan !== null && plan.perSeat && quantity < plan.minSeats) {
    throw new SeatChangeError(
      'below_minimum',
      false,
      `The ${plan.name} plan is sold from ${plan.minSeats} seats; got ${quantity}.`,
    )
  }
  return item
}

/**
 * Sets a subscription's seats, prorated onto the next invoice. Idempotent by `idempotencyKey`
 * (one key per intended change: a retry with it never changes the seats twice). Throws
 * `SeatChangeError`; `transient` ones (network, timeouts, Stripe's 5xx, 409, 429) may be retried
 * with the same key.
 */
export async function setSeatQuantity(
  stripe: Stripe,
  subscriptionId: string,
  quantity: number,
  idempotencyKey: string,
  options: { prorationDate?: number } = {},
): Promise<SeatChange> {
  const item = await seatItem(stripe, subscriptionId, quantity)
  const previousQuantity = item.quantity ?? 1
  const base = { subscriptionId, subscriptionItemId: item.id, previousQuantity }
  // Already so (an earlier try went through and its answer was lost): nothing to send.
  if (previousQuantity === quantity) return { ...base, quantity, changed: false }
  const updated = await stripeCall('Changing the seats', () =>
    stripe.subscriptionItems.update(
      item.id,
      {
        quantity,
        proration_behavior: 'create_prorations',
        ...(options.prorationDate !== undefined ? { proration_date: options.prorationDate } : {}),
      },
      { idempotencyKey },
    ),
  )
  return { ...base, quantity: updated.quantity ?? quantity, changed: true }
}

// The part of a preview invoice read here; anything else is not understood, and refused.
const previewSchema = z.object({
  currency: z.string(),
  total: z.int(),
  lines: z.object({
    data: z.array(
      z.object({
        amount: z.int(),
        description: z.nullable(z.string()),
        quantity: z.nullable(z.int()),
        period: z.object({ start: z.int(), end: z.int() }),
        parent: z.nullable(
          z.object({
            subscription_item_details: z.optional(z.nullable(z.object({ proration: z.boolean() }))),
          }),
        ),
      }),
    ),
  }),
})

/** What changing the seats to `quantity` would cost: the prorations and the next invoice. */
export async function previewSeatChange(
  stripe: Stripe,
  subscriptionId: string,
  quantity: number,
  options: { prorationDate?: number } = {},
): Promise<SeatChangePreview> {
  const item = await seatItem(stripe, subscriptionId, quantity)
  const invoice = await stripeCall('Previewing the seat change', () =>
    stripe.invoices.createPreview({
      subscription: subscriptionId,
      subscription_details: {
        items: [{ id: item.id, quantity }],
        proration_behavior: 'create_prorations',
        ...(options.prorationDate !== undefined ? { proration_date: options.prorationDate } : {}),
      },
    }),
  )
  const parsed = previewSchema.safeParse(invoice)
  if (!parsed.success) {
    throw new SeatChangeError('stripe', false, `The preview invoice is not understood.`, {
      cause: parsed.error,
    })
  }
  const lines = parsed.data.lines.data.map((line) => ({
    description: line.description,
    amount: line.amount,
    quantity: line.quantity,
    proration: line.parent?.subscription_item_details?.proration === true,
    periodStart: new Date(line.period.start * 1000),
    periodEnd: new Date(line.period.end * 1000),
  }))
  const prorations = lines.filter((line) => line.proration)
  // This change's prorations start at its proration date, the latest of any pending ones.
  const starts = parsed.data.lines.data
    .filter((line) => line.parent?.subscription_item_details?.proration === true)
    .map((line) => line.period.start)
  return {
    prorationAmount: prorations.reduce((sum, line) => sum + line.amount, 0),
    nextInvoiceTotal: parsed.data.total,
    currency: parsed.data.currency,
    lines,
    prorationDate: starts.length > 0 ? Math.max(...starts) : null,
  }
}
