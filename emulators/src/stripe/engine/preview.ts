// `POST /v1/invoices/create_preview`: the invoice a subscription would get next, optionally after
// a change to its items (`subscription_details.items`), worked out on a copy so nothing is stored.
// With `create_prorations` (the default) that is the next renewal: the pending prorations, the
// change's prorations and the next period at the new quantities. With `always_invoice` it is the
// invoice the change would bill at once. Prorations are lines with
// `parent.subscription_item_details.proration: true`, as Stripe marks them.
import { addInterval } from '../clock.ts'
import { invalidRequest, invalidState } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Invoice } from '../invoice-objects.ts'
import type { InvoicePreviewParams } from '../schemas.ts'
import { clone, currentPeriodEnd, type EngineCore } from './core.ts'
import { buildInvoice } from './invoices.ts'
import {
  checkProrationDate,
  pendingProrations,
  prorationsFor,
  type Proration,
} from './prorations.ts'
import { changeItems, requireSubscription } from './subscriptions.ts'

const DETAILS = 'subscription_details'

export function previewInvoice(core: EngineCore, params: InvoicePreviewParams): Invoice {
  if (params.subscription === undefined) {
    throw invalidRequest(
      'The Tessera Stripe stand-in previews the invoices of an existing subscription only: pass subscription.',
      'subscription',
      'parameter_missing',
    )
  }
  const stored = requireSubscription(core, params.subscription, 'subscription')
  if (params.customer !== undefined && params.customer !== stored.customer) {
    throw invalidRequest(
      `The subscription ${stored.id} does not belong to the customer ${params.customer}.`,
      'customer',
    )
  }
  if (stored.status === 'canceled' || stored.status === 'incomplete_expired') {
    throw invalidState(`No upcoming invoices for customer: ${stored.customer}`)
  }
  const details = params.subscription_details ?? {}
  const behavior = details.proration_behavior ?? 'create_prorations'
  if (details.proration_date !== undefined) {
    if (details.items === undefined) {
      throw invalidRequest(
        `${DETAILS}[proration_date] previews a change: pass ${DETAILS}[items] with it.`,
        `${DETAILS}[items]`,
        'parameter_missing',
      )
    }
    if (behavior === 'none') {
      throw invalidRequest(
        `${DETAILS}[proration_date] cannot be used with ${DETAILS}[proration_behavior]=none.`,
        `${DETAILS}[proration_date]`,
      )
    }
  }
  const sub = clone(stored)
  const now = core.now()
  const at = checkProrationDate(sub, details.proration_date, `${DETAILS}[proration_date]`) ?? now
  let prorations: Proration[] = []
  if (details.items !== undefined) {
    const before = clone(sub.items.data)
    const result = changeItems(core, sub, details.items, `${DETAILS}[items]`)
    if (result.intervalChanged) {
      throw invalidRequest(
        'The Tessera Stripe stand-in does not preview a change of billing interval.',
        `${DETAILS}[items]`,
      )
    }
    if (behavior !== 'none') prorations = prorationsFor(core, sub, before, at)
  }
  const pending = pendingProrations(core, sub.id)
  const preview = { id: `upcoming_in_${newId('x', 24).slice(2)}` }
  const end = currentPeriodEnd(sub)
  if (behavior === 'always_invoice' && details.items !== undefined) {
    return buildInvoice(
      core,
      sub,
      'subscription_update',
      at,
      end,
      { items: false, prorations: [...pending, ...prorations] },
      preview,
    )
  }
  // The next renewal: its period starts where the current one ends.
  const start = sub.items.data[0]?.current_period_start ?? now
  const first = sub.items.data[0]?.price.recurring
  if (first) {
    const nextEnd = addInterval(end, first.interval, first.interval_count, sub.billing_cycle_anchor)
    for (const item of sub.items.data) {
      item.current_period_start = end
      item.current_period_end = nextEnd
    }
  }
  return buildInvoice(
    core,
    sub,
    'subscription_cycle',
    start,
    end,
    { prorations: [...pending, ...prorations] },
    preview,
  )
}
