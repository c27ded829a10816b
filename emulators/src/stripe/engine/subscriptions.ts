// Subscriptions: created by a completed checkout, changed through the API or the portal, renewed
// and cancelled by the clock. Each change that Stripe reports emits its event.
import { RENEWAL_DECLINE } from '../cards.ts'
import { DAY, addInterval } from '../clock.ts'
import { cardError, invalidRequest, invalidState, resourceMissing } from '../errors.ts'
import { newSubscription, newSubscriptionItem } from '../factories.ts'
import { newId } from '../ids.ts'
import { planOf, type Customer, type Subscription } from '../objects.ts'
import type { SubscriptionUpdateParams } from '../schemas.ts'
import type { CheckoutExtras } from '../state.ts'
import { requirePrice } from './catalogue.ts'
import {
  AUTOMATIC,
  LIVE_STATUSES,
  applyMetadata,
  clone,
  currentPeriodEnd,
  type EngineCore,
  type Origin,
} from './core.ts'
import { emit, emitSubscriptionUpdated } from './events.ts'
import { collect, createInvoice, type InvoiceContent } from './invoices.ts'
import { prorate, takePending } from './prorations.ts'

export function requireSubscription(core: EngineCore, id: string, param = 'id'): Subscription {
  const sub = core.state.subscriptions[id]
  if (!sub) throw resourceMissing('subscription', id, param)
  return sub
}

/** A checkout's subscription, its first invoice, and the first payment. */
export function createSubscription(
  core: EngineCore,
  customer: Customer,
  extras: CheckoutExtras,
  paymentMethodId: string,
  origin: Origin,
): Subscription {
  const now = core.now()
  const id = newId('sub', 24)
  const firstPrice = requirePrice(core, extras.lineItems[0]?.price ?? '', 'line_items[0][price]')
  const trialEnd = extras.trialPeriodDays ? now + extras.trialPeriodDays * DAY : null
  const periodEnd =
    trialEnd ??
    addInterval(now, firstPrice.recurring.interval, firstPrice.recurring.interval_count, now)
  const items = extras.lineItems.map((item) =>
    newSubscriptionItem(
      id,
      requirePrice(core, item.price, 'price'),
      item.quantity,
      { start: now, end: periodEnd },
      now,
    ),
  )
  const sub = newSubscription({
    id,
    created: now,
    billing_cycle_anchor: trialEnd ?? now,
    currency: firstPrice.currency,
    customer: customer.id,
    default_payment_method: paymentMethodId,
    items,
    metadata: { ...extras.subscriptionMetadata },
    start_date: now,
    status: trialEnd ? 'trialing' : 'active',
    trial_end: trialEnd,
    trial_start: trialEnd ? now : null,
  })
  core.state.subscriptions[id] = sub
  const invoice = createInvoice(core, sub, 'subscription_create', now, now, {
    free: trialEnd !== null,
  })
  sub.latest_invoice = invoice.id
  emit(core, 'customer.subscription.created', sub, undefined, origin)
  emit(core, 'invoice.created', invoice, undefined, origin)
  collect(core, invoice, sub, true, origin)
  return sub
}

export function listSubscriptions(core: EngineCore): Subscription[] {
  return Object.values(core.state.subscriptions).reverse().map(clone)
}

/** The customer's subscriptions that have not ended, newest first (what the portal shows). */
export function liveSubscriptions(core: EngineCore, customerId: string): Subscription[] {
  return listSubscriptions(core).filter(
    (sub) => sub.customer === customerId && LIVE_STATUSES.includes(sub.status),
  )
}

export function updateSubscription(
  core: EngineCore,
  id: string,
  params: SubscriptionUpdateParams,
  origin: Origin,
): Subscription {
  const sub = requireSubscription(core, id)
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    const allowed = Object.keys(params).every((k) =>
      ['metadata', 'cancellation_details', 'expand'].includes(k),
    )
    if (!allowed) {
      throw invalidState(
        'A canceled subscription can only update its cancellation_details and metadata.',
      )
    }
  }
  const before = clone(sub)
  const pendingBefore = clone(core.state.pendingInvoiceItems)
  const now = core.now()
  // What to bill at once: the new period in full (a new interval), or prorations.
  let billNow: InvoiceContent | null

  try {
    billNow = applyChanges(core, sub, before, params, now)
  } catch (error) {
    // Stripe changes all or nothing: a refused parameter leaves the subscription as it was.
    Object.assign(sub, before)
    core.state.pendingInvoiceItems = pendingBefore
    throw error
  }

  if (billNow) {
    const invoice = createInvoice(
      core,
      sub,
      'subscription_update',
      billNow.items === false ? now : (sub.items.data[0]?.current_period_start ?? now),
      currentPeriodEnd(sub),
      billNow,
    )
    sub.latest_invoice = invoice.id
    emit(core, 'invoice.created', invoice, undefined, origin)
    const paid = collect(core, invoice, sub, false, origin)
    if (!paid && params.payment_behavior === 'error_if_incomplete') {
      // Stripe leaves the subscription as it was and voids the attempt.
      invoice.status = 'void'
      invoice.status_transitions.voided_at = core.now()
      Object.assign(sub, before)
      core.state.pendingInvoiceItems = pendingBefore
      throw cardError(RENEWAL_DECLINE)
    }
  }
  emitSubscriptionUpdated(core, before, sub, origin)
  return clone(sub)
}

/** Applies an update's changes to `sub`; returns what to bill at once, if anything. */
function applyChanges(
  core: EngineCore,
  sub: Subscription,
  before: Subscription,
  params: SubscriptionUpdateParams,
  now: number,
): InvoiceContent | null {
  let billNow: InvoiceContent | null = null
  if (params.items) {
    const result = changeItems(core, sub, params.items)
    if (result.intervalChanged) {
      // A new billing interval restarts the billing cycle and bills the new price now.
      const periodEnd = addInterval(
        now,
        result.interval.interval,
        result.interval.interval_count,
        now,
      )
      for (const item of sub.items.data) {
        item.current_period_start = now
        item.current_period_end = periodEnd
      }
      sub.billing_cycle_anchor = now
      billNow = {}
    } else {
      billNow = prorate(core, sub, before.items.data, params, now)
    }
  }
  if (params.cancel_at_period_end !== undefined) {
    setCancelAtPeriodEnd(core, sub, params.cancel_at_period_end)
  }
  if (params.cancel_at !== undefined) {
    if (params.cancel_at === null) {
      sub.cancel_at = null
      sub.cancel_at_period_end = false
      sub.canceled_at = null
    } else {
      if (params.cancel_at <= now) {
        throw invalidRequest('cancel_at must be in the future.', 'cancel_at')
      }
      sub.cancel_at = params.cancel_at
      sub.cancel_at_period_end = params.cancel_at === currentPeriodEnd(sub)
      sub.canceled_at = now
      sub.cancellation_details.reason = 'cancellation_requested'
    }
  }
  if (params.cancellation_details) {
    if (params.cancellation_details.comment !== undefined) {
      sub.cancellation_details.comment = params.cancellation_details.comment
    }
    if (params.cancellation_details.feedback !== undefined) {
      sub.cancellation_details.feedback = params.cancellation_details.feedback
    }
  }
  if (params.default_payment_method !== undefined) {
    const pm = core.state.paymentMethods[params.default_payment_method]
    if (!pm || pm.customer !== sub.customer) {
      throw resourceMissing(
        'PaymentMethod',
        params.default_payment_method,
        'default_payment_method',
      )
    }
    sub.default_payment_method = pm.id
  }
  sub.metadata = applyMetadata(sub.metadata, params.metadata)
  return billNow
}

/** Applies item changes to `sub` (a stored one, or a preview's copy); `param` names the list. */
export function changeItems(
  core: EngineCore,
  sub: Subscription,
  changes: NonNullable<SubscriptionUpdateParams['items']>,
  param = 'items',
) {
  const previousInterval = sub.items.data[0]?.price.recurring
  const start = sub.items.data[0]?.current_period_start ?? core.now()
  const end = currentPeriodEnd(sub)
  changes.forEach((change, i) => {
    const existingIndex = change.id ? sub.items.data.findIndex((item) => item.id === change.id) : -1
    if (change.id && existingIndex === -1) {
      throw resourceMissing('subscription item', change.id, `${param}[${i}][id]`)
    }
    const existing = sub.items.data[existingIndex]
    if (change.deleted) {
      if (!existing)
        throw invalidRequest(`Missing required param: items[${i}][id].`, `${param}[${i}][id]`)
      sub.items.data.splice(existingIndex, 1)
      return
    }
    const price = change.price
      ? requirePrice(core, change.price, `${param}[${i}][price]`)
      : undefined
    if (price && !price.active) {
      throw invalidRequest('The price specified is inactive.', `${param}[${i}][price]`)
    }
    if (existing) {
      if (price) {
        existing.price = clone(price)
        existing.plan = planOf(existing.price)
      }
      if (change.quantity !== undefined) existing.quantity = change.quantity
      existing.metadata = applyMetadata(existing.metadata, change.metadata)
    } else {
      if (!price)
        throw invalidRequest(
          `Missing required param: items[${i}][price].`,
          `${param}[${i}][price]`,
          'parameter_missing',
        )
      sub.items.data.push(
        newSubscriptionItem(sub.id, price, change.quantity ?? 1, { start, end }, core.now()),
      )
    }
  })
  if (sub.items.data.length === 0) {
    throw invalidRequest('A subscription must have at least one active plan.', param)
  }
  const first = sub.items.data[0]?.price.recurring
  if (!first) throw invalidRequest('A subscription must have at least one active plan.', param)
  for (const item of sub.items.data) {
    if (
      item.price.currency !== sub.currency ||
      item.price.recurring.interval !== first.interval ||
      item.price.recurring.interval_count !== first.interval_count
    ) {
      throw invalidRequest(
        'All prices in a subscription must have the same currency and billing interval.',
        param,
      )
    }
  }
  sub.items.total_count = sub.items.data.length
  const intervalChanged =
    previousInterval !== undefined &&
    (previousInterval.interval !== first.interval ||
      previousInterval.interval_count !== first.interval_count)
  return { intervalChanged, interval: first }
}

function setCancelAtPeriodEnd(core: EngineCore, sub: Subscription, cancel: boolean): void {
  if (cancel) {
    sub.cancel_at_period_end = true
    sub.cancel_at = currentPeriodEnd(sub)
    sub.canceled_at = core.now()
    sub.cancellation_details.reason = 'cancellation_requested'
  } else {
    sub.cancel_at_period_end = false
    sub.cancel_at = null
    sub.canceled_at = null
    sub.cancellation_details = { comment: null, feedback: null, reason: null }
  }
}

export function cancelSubscription(
  core: EngineCore,
  id: string,
  details: { comment?: string | null; feedback?: string | null } | undefined,
  origin: Origin,
): Subscription {
  const sub = requireSubscription(core, id)
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    throw invalidState(`This subscription has already been canceled: ${id}.`)
  }
  if (details?.comment !== undefined) sub.cancellation_details.comment = details.comment
  if (details?.feedback !== undefined) sub.cancellation_details.feedback = details.feedback
  cancelNow(core, sub, origin, 'cancellation_requested')
  return clone(sub)
}

export function cancelNow(
  core: EngineCore,
  sub: Subscription,
  origin: Origin,
  reason: Subscription['cancellation_details']['reason'],
): void {
  const now = core.now()
  sub.status = 'canceled'
  sub.ended_at = now
  sub.canceled_at = sub.canceled_at ?? now
  sub.cancellation_details.reason = reason
  emit(core, 'customer.subscription.deleted', sub, undefined, origin)
}

/** A period end: bill the next period (charging the saved card), or end a trial. */
export function renew(core: EngineCore, sub: Subscription): void {
  const before = clone(sub)
  const oldStart = sub.items.data[0]?.current_period_start ?? sub.created
  const start = currentPeriodEnd(sub)
  const first = sub.items.data[0]?.price.recurring
  if (!first) return
  const anchor = sub.billing_cycle_anchor
  const end = addInterval(start, first.interval, first.interval_count, anchor)
  for (const item of sub.items.data) {
    item.current_period_start = start
    item.current_period_end = end
  }
  const invoice = createInvoice(core, sub, 'subscription_cycle', oldStart, start, {
    prorations: takePending(core, sub.id),
  })
  sub.latest_invoice = invoice.id
  emit(core, 'invoice.created', invoice, undefined, AUTOMATIC)
  collect(core, invoice, sub, false, AUTOMATIC)
  emitSubscriptionUpdated(core, before, sub, AUTOMATIC)
}
