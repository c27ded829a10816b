// Prorations, as Stripe computes them for a change of a subscription's items mid-period: a credit
// for the unused time of each item as it was and a charge for the remaining time of each item as
// it is now, both by the seconds left in the period. `create_prorations` keeps them as pending
// invoice items for the next invoice; `always_invoice` bills them at once; `none` drops them.
import { invalidRequest } from '../errors.ts'
import { newInvoiceLine } from '../invoice-factories.ts'
import { newId } from '../ids.ts'
import type { InvoiceLineItem } from '../invoice-objects.ts'
import type { Price, Subscription, SubscriptionItem } from '../objects.ts'
import type { SubscriptionUpdateParams } from '../schemas.ts'
import { productName } from './catalogue.ts'
import type { InvoiceContent } from './invoices.ts'
import { clone, currentPeriodEnd, type EngineCore } from './core.ts'

export type ProrationBehavior = 'always_invoice' | 'create_prorations' | 'none'

/** One proration: what an invoice line (or a pending invoice item) says and charges. */
export interface Proration {
  subscription: string
  subscriptionItem: string
  price: Price
  quantity: number
  /** Cents; negative for a credit. */
  amount: number
  description: string
  period: { start: number; end: number }
}

const DATE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
})

/** The part of the current period left at `at`, from 1 (its start) to 0 (its end). */
export function remainingFraction(sub: Subscription, at: number): number {
  const start = sub.items.data[0]?.current_period_start ?? at
  const end = currentPeriodEnd(sub)
  if (end <= start) return 0
  return Math.min(1, Math.max(0, (end - at) / (end - start)))
}

function sameCharge(a: SubscriptionItem, b: SubscriptionItem): boolean {
  return a.price.id === b.price.id && a.quantity === b.quantity
}

/**
 * The prorations of moving `sub` from the items `before` to its items now, at `at`. None while
 * trialing (trial time costs nothing) and none for items whose price and quantity are unchanged.
 */
export function prorationsFor(
  core: EngineCore,
  sub: Subscription,
  before: readonly SubscriptionItem[],
  at: number,
): Proration[] {
  if (sub.trial_end !== null && sub.trial_end > at) return []
  const fraction = remainingFraction(sub, at)
  if (fraction === 0) return []
  const period = { start: at, end: currentPeriodEnd(sub) }
  const after = new Map(sub.items.data.map((item) => [item.id, item]))
  const old = new Map(before.map((item) => [item.id, item]))
  const when = DATE.format(new Date(at * 1000))
  const line = (item: SubscriptionItem, sign: 1 | -1, words: string): Proration => ({
    subscription: sub.id,
    subscriptionItem: item.id,
    price: clone(item.price),
    quantity: item.quantity,
    amount: sign * Math.round(item.price.unit_amount * item.quantity * fraction),
    description: `${words} ${item.quantity} × ${productName(core, item.price)} after ${when}`,
    period,
  })
  const prorations: Proration[] = []
  for (const item of before) {
    const now = after.get(item.id)
    if (!now || !sameCharge(item, now)) prorations.push(line(item, -1, 'Unused time on'))
  }
  for (const item of sub.items.data) {
    const was = old.get(item.id)
    if (!was || !sameCharge(was, item)) prorations.push(line(item, 1, 'Remaining time on'))
  }
  return prorations
}

/** The sum of some prorations, in cents (negative: a credit). */
export function netOf(prorations: readonly Proration[]): number {
  return prorations.reduce((sum, proration) => sum + proration.amount, 0)
}

/** Keeps prorations as pending invoice items, for the subscription's next invoice. */
export function addPending(core: EngineCore, prorations: readonly Proration[]): void {
  const created = core.now()
  for (const proration of prorations) {
    const id = newId('ii', 24)
    core.state.pendingInvoiceItems[id] = {
      id,
      subscription: proration.subscription,
      subscriptionItem: proration.subscriptionItem,
      price: proration.price.id,
      quantity: proration.quantity,
      amount: proration.amount,
      description: proration.description,
      period: proration.period,
      created,
    }
  }
}

/** The subscription's pending prorations, oldest first (left pending). */
export function pendingProrations(core: EngineCore, subscriptionId: string): Proration[] {
  return Object.values(core.state.pendingInvoiceItems)
    .filter((pending) => pending.subscription === subscriptionId)
    .sort((a, b) => a.created - b.created)
    .flatMap((pending) => {
      const price = core.state.prices[pending.price]
      if (!price) return []
      return [
        {
          subscription: pending.subscription,
          subscriptionItem: pending.subscriptionItem,
          price: clone(price),
          quantity: pending.quantity,
          amount: pending.amount,
          description: pending.description,
          period: pending.period,
        },
      ]
    })
}

/** The subscription's pending prorations, taken off the pending list for an invoice. */
export function takePending(core: EngineCore, subscriptionId: string): Proration[] {
  const taken = pendingProrations(core, subscriptionId)
  for (const [id, pending] of Object.entries(core.state.pendingInvoiceItems)) {
    if (pending.subscription === subscriptionId) delete core.state.pendingInvoiceItems[id]
  }
  return taken
}

/** Invoice lines for prorations (`parent.subscription_item_details.proration: true`). */
export function prorationLines(
  prorations: readonly Proration[],
  invoiceId: string,
): InvoiceLineItem[] {
  return prorations.map((proration) =>
    newInvoiceLine({
      amount: proration.amount,
      description: proration.description,
      invoice: invoiceId,
      period: proration.period,
      item: {
        id: proration.subscriptionItem,
        subscription: proration.subscription,
        price: proration.price,
        quantity: proration.quantity,
      },
      proration: true,
    }),
  )
}

/**
 * The prorations of a change of items (`proration_behavior`, default `create_prorations`):
 * kept pending, dropped, or returned to be billed at once with the pending ones. A net credit
 * billed "at once" stays pending instead, for the next invoice.
 */
export function prorate(
  core: EngineCore,
  sub: Subscription,
  before: readonly SubscriptionItem[],
  params: Pick<SubscriptionUpdateParams, 'proration_behavior' | 'proration_date'>,
  now: number,
): InvoiceContent | null {
  const behavior = params.proration_behavior ?? 'create_prorations'
  if (behavior === 'none') return null
  const at = checkProrationDate(sub, params.proration_date, 'proration_date') ?? now
  const prorations = prorationsFor(core, sub, before, at)
  if (behavior === 'always_invoice' && netOf(prorations) > 0) {
    return { items: false, prorations: [...takePending(core, sub.id), ...prorations] }
  }
  addPending(core, prorations)
  return null
}

/** A `proration_date` must fall in the current period, as Stripe requires. */
export function checkProrationDate(
  sub: Subscription,
  date: number | undefined,
  param: string,
): number | undefined {
  if (date === undefined) return undefined
  const start = sub.items.data[0]?.current_period_start ?? sub.created
  if (date < start || date > currentPeriodEnd(sub)) {
    throw invalidRequest(
      `The proration date must be within the current period (${start} to ${currentPeriodEnd(sub)}).`,
      param,
    )
  }
  return date
}
