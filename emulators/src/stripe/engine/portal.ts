// Billing Portal sessions and what the hosted portal page does: cancel or resume at period end,
// switch plan, and update the card (which retries what is owed).
import { checkCard, type CardInput, type RejectedCard } from '../cards.ts'
import { invalidState, resourceMissing } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Subscription } from '../objects.ts'
import type { PortalCreateParams } from '../schemas.ts'
import { newPortalSession } from '../session-factories.ts'
import type { PortalSession } from '../session-objects.ts'
import { plans, requirePrice } from './catalogue.ts'
import { AUTOMATIC, LIVE_STATUSES, clone, type EngineCore } from './core.ts'
import { requireCustomer, updateCustomer } from './customers.ts'
import { emitSubscriptionUpdated } from './events.ts'
import { collect, listInvoices } from './invoices.ts'
import { attachCard } from './payment-methods.ts'
import { liveSubscriptions, updateSubscription } from './subscriptions.ts'

export function createPortalSession(
  core: EngineCore,
  params: PortalCreateParams,
  publicUrl: string,
): PortalSession {
  const customer = requireCustomer(core, params.customer, 'customer')
  if (params.configuration !== undefined && params.configuration !== 'bpc_tessera_default') {
    throw resourceMissing('billing portal configuration', params.configuration, 'configuration')
  }
  const id = newId('bps', 24)
  const session = newPortalSession({
    id,
    created: core.now(),
    customer: customer.id,
    return_url: params.return_url ?? null,
    url: `${publicUrl}/portal/${id}`,
  })
  core.state.portalSessions[id] = session
  return clone(session)
}

/** What the portal page shows for its customer. */
export function portalView(core: EngineCore, portalId: string) {
  const portal = core.state.portalSessions[portalId]
  if (!portal) throw resourceMissing('billing_portal.session', portalId)
  const customer = core.state.customers[portal.customer]
  const subscriptions = liveSubscriptions(core, portal.customer)
  const invoices = listInvoices(core).filter((invoice) => invoice.customer === portal.customer)
  return {
    portal: clone(portal),
    customer: customer && !core.state.deletedCustomers[customer.id] ? clone(customer) : null,
    subscriptions,
    invoices,
    plans: plans(core),
  }
}

function portalSubscription(core: EngineCore, portalId: string, subId: string): Subscription {
  const portal = core.state.portalSessions[portalId]
  if (!portal) throw resourceMissing('billing_portal.session', portalId)
  const sub = core.state.subscriptions[subId]
  if (!sub || sub.customer !== portal.customer) throw resourceMissing('subscription', subId)
  if (!LIVE_STATUSES.includes(sub.status)) {
    throw invalidState('This subscription has ended and can no longer be changed.')
  }
  return sub
}

export function portalCancel(core: EngineCore, portalId: string, subId: string): Subscription {
  const sub = portalSubscription(core, portalId, subId)
  return updateSubscription(core, sub.id, { cancel_at_period_end: true }, AUTOMATIC)
}

export function portalResume(core: EngineCore, portalId: string, subId: string): Subscription {
  const sub = portalSubscription(core, portalId, subId)
  return updateSubscription(core, sub.id, { cancel_at_period_end: false }, AUTOMATIC)
}

export function portalChangePlan(
  core: EngineCore,
  portalId: string,
  subId: string,
  priceId: string,
): Subscription {
  const sub = portalSubscription(core, portalId, subId)
  const item = sub.items.data[0]
  if (!item) throw invalidState('This subscription has no plan to change.')
  const price = requirePrice(core, priceId, 'price')
  if (!price.active) throw invalidState('That plan is no longer offered.')
  return updateSubscription(
    core,
    sub.id,
    { items: [{ id: item.id, price: price.id }], proration_behavior: 'create_prorations' },
    AUTOMATIC,
  )
}

/**
 * The portal's "Update card": saves the new card as the default for the customer and their
 * subscriptions, then retries every unpaid invoice with it.
 */
export function portalUpdateCard(
  core: EngineCore,
  portalId: string,
  input: CardInput,
): { ok: true } | { ok: false; rejection: RejectedCard } {
  const portal = core.state.portalSessions[portalId]
  if (!portal) throw resourceMissing('billing_portal.session', portalId)
  const customer = requireCustomer(core, portal.customer, 'customer')
  const card = checkCard(input, core.now())
  if (!card.ok) return { ok: false, rejection: card }
  const pm = attachCard(core, card, customer.id, customer.email)
  updateCustomer(
    core,
    customer.id,
    { invoice_settings: { default_payment_method: pm.id } },
    AUTOMATIC,
  )
  for (const sub of Object.values(core.state.subscriptions)) {
    if (sub.customer !== customer.id || !LIVE_STATUSES.includes(sub.status)) continue
    const before = clone(sub)
    sub.default_payment_method = pm.id
    const open = Object.values(core.state.invoices).filter(
      (invoice) =>
        invoice.status === 'open' && invoice.parent.subscription_details.subscription === sub.id,
    )
    // A card that now works pays what is owed; the subscription's status follows.
    for (const invoice of open) collect(core, invoice, sub, true, AUTOMATIC)
    emitSubscriptionUpdated(core, before, sub, AUTOMATIC)
  }
  return { ok: true }
}
