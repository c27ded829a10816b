// Invoices: created by subscriptions (first payment, renewals, plan changes) and paid with the
// subscription's card; the outcome sets the subscription's status and the customer's delinquency.
import { RENEWAL_DECLINE } from '../cards.ts'
import { cardError, invalidState, resourceMissing, type Decline } from '../errors.ts'
import { newInvoice, newInvoiceLine } from '../invoice-factories.ts'
import { newId } from '../ids.ts'
import type { BillingReason, Invoice } from '../invoice-objects.ts'
import type { Subscription } from '../objects.ts'
import { formatAmount, productName } from './catalogue.ts'
import { prorationLines, type Proration } from './prorations.ts'
import { LIVE_STATUSES, clone, currentPeriodEnd, type EngineCore, type Origin } from './core.ts'
import { emit, emitSubscriptionUpdated } from './events.ts'

/** What an invoice bills besides its header. */
export interface InvoiceContent {
  /** The items for their current period (false: the prorations alone). Default true. */
  items?: boolean
  /** A trial: the items' lines are there, at 0. */
  free?: boolean
  /** Proration lines to add (pending invoice items, or a change billed at once). */
  prorations?: readonly Proration[]
}

/** An invoice for the subscription, not stored: a preview, or what `createInvoice` stores. */
export function buildInvoice(
  core: EngineCore,
  sub: Subscription,
  reason: BillingReason,
  periodStart: number,
  periodEnd: number,
  content: InvoiceContent,
  preview: { id: string } | null = null,
): Invoice {
  const now = core.now()
  const customer = core.state.customers[sub.customer]
  const id = preview?.id ?? newId('in', 24)
  const lineStart = sub.items.data[0]?.current_period_start ?? now
  const lineEnd = currentPeriodEnd(sub)
  const free = content.free === true
  const itemLines =
    content.items === false
      ? []
      : sub.items.data.map((item) => {
          const name = productName(core, item.price)
          const each = `${formatAmount(item.price.unit_amount, item.price.currency)} / ${item.price.recurring.interval}`
          return newInvoiceLine({
            amount: free ? 0 : item.price.unit_amount * item.quantity,
            description: free
              ? `Trial period for ${name}`
              : `${item.quantity} × ${name} (at ${each})`,
            invoice: id,
            period: { end: lineEnd, start: lineStart },
            item,
            proration: false,
          })
        })
  const lines = [...prorationLines(content.prorations ?? [], id), ...itemLines]
  const number =
    preview === null
      ? `${customer?.invoice_prefix ?? 'TESSERA'}-${String(core.state.invoiceSequence + 1).padStart(4, '0')}`
      : null
  return newInvoice({
    id,
    created: now,
    account_name: core.options.accountName,
    billing_reason: reason,
    currency: sub.currency,
    customer: sub.customer,
    customer_email: customer?.email ?? null,
    customer_name: customer?.name ?? null,
    number,
    period_end: periodEnd,
    period_start: periodStart,
    lines,
    subscription: sub,
    ...(preview === null ? {} : { status: 'draft' as const }),
  })
}

export function createInvoice(
  core: EngineCore,
  sub: Subscription,
  reason: BillingReason,
  periodStart: number,
  periodEnd: number,
  content: InvoiceContent,
): Invoice {
  const invoice = buildInvoice(core, sub, reason, periodStart, periodEnd, content)
  core.state.invoiceSequence += 1
  const customer = core.state.customers[sub.customer]
  if (customer) customer.next_invoice_sequence += 1
  core.state.invoices[invoice.id] = invoice
  return invoice
}

function chargeDecline(
  core: EngineCore,
  paymentMethodId: string | null,
  initial: boolean,
): Decline | null {
  if (!paymentMethodId) {
    return {
      code: 'card_declined',
      declineCode: 'generic_decline',
      message: 'This customer has no attached payment method.',
    }
  }
  const behaviour = core.state.cardBehaviours[paymentMethodId] ?? 'succeed'
  if (behaviour === 'fail_renewals' && !initial) return RENEWAL_DECLINE
  return null
}

/**
 * Tries to pay an open invoice with the subscription's card, then sets the subscription's status
 * from the outcome (active when nothing is left unpaid, past_due otherwise). Returns whether paid.
 */
export function collect(
  core: EngineCore,
  invoice: Invoice,
  sub: Subscription | undefined,
  initial: boolean,
  origin: Origin,
  paymentMethodId?: string,
): boolean {
  const customer = core.state.customers[invoice.customer]
  const pm =
    paymentMethodId ??
    sub?.default_payment_method ??
    customer?.invoice_settings.default_payment_method ??
    null
  const decline = invoice.amount_due === 0 ? null : chargeDecline(core, pm, initial)
  invoice.attempted = true
  invoice.attempt_count += 1
  const now = core.now()
  if (decline) {
    emit(core, 'invoice.payment_failed', invoice, undefined, origin)
  } else {
    invoice.status = 'paid'
    invoice.amount_paid = invoice.amount_due
    invoice.amount_remaining = 0
    invoice.status_transitions.paid_at = now
    emit(core, 'invoice.paid', invoice, undefined, origin)
    emit(core, 'invoice.payment_succeeded', invoice, undefined, origin)
  }
  if (sub && LIVE_STATUSES.includes(sub.status)) {
    const unpaid = Object.values(core.state.invoices).some(
      (other) =>
        other.status === 'open' && other.parent.subscription_details.subscription === sub.id,
    )
    const trialOngoing = sub.trial_end !== null && sub.trial_end > now
    sub.status = unpaid ? 'past_due' : trialOngoing ? 'trialing' : 'active'
  }
  if (customer)
    customer.delinquent = Object.values(core.state.invoices).some(
      (other) =>
        other.status === 'open' && other.customer === customer.id && other.attempt_count > 0,
    )
  return !decline
}

function requireInvoice(core: EngineCore, id: string): Invoice {
  const invoice = core.state.invoices[id]
  if (!invoice) throw resourceMissing('invoice', id)
  return invoice
}

export function retrieveInvoice(core: EngineCore, id: string): Invoice {
  return clone(requireInvoice(core, id))
}

export function listInvoices(core: EngineCore): Invoice[] {
  return Object.values(core.state.invoices).reverse().map(clone)
}

/** `POST /v1/invoices/:id/pay`: a declined card is a 402 card error, as in Stripe. */
export function payInvoice(
  core: EngineCore,
  id: string,
  paymentMethodId: string | undefined,
  origin: Origin,
): Invoice {
  const invoice = requireInvoice(core, id)
  if (invoice.status !== 'open') {
    throw invalidState(`Invoice is already ${invoice.status}.`)
  }
  if (
    paymentMethodId !== undefined &&
    core.state.paymentMethods[paymentMethodId]?.customer !== invoice.customer
  ) {
    throw resourceMissing('PaymentMethod', paymentMethodId, 'payment_method')
  }
  const sub = core.state.subscriptions[invoice.parent.subscription_details.subscription]
  const before = sub ? clone(sub) : undefined
  const paid = collect(core, invoice, sub, false, origin, paymentMethodId)
  if (sub && before) emitSubscriptionUpdated(core, before, sub, origin)
  if (!paid) {
    const pm = paymentMethodId ?? sub?.default_payment_method ?? null
    throw cardError(chargeDecline(core, pm, false) ?? RENEWAL_DECLINE)
  }
  return clone(invoice)
}
