// Checkout Sessions (subscription mode): created by the API, paid on the hosted page (or through
// `/_emulator`), expired by the API or the clock.
import { checkCard, type CardInput, type RejectedCard } from '../cards.ts'
import { DAY } from '../clock.ts'
import { invalidRequest, invalidState, resourceMissing } from '../errors.ts'
import { newCheckoutSession } from '../session-factories.ts'
import { newId } from '../ids.ts'
import type { ApiList, Customer } from '../objects.ts'
import type { CheckoutCreateParams } from '../schemas.ts'
import type { CheckoutLineItem, CheckoutSession } from '../session-objects.ts'
import {
  describeInterval,
  describePrice,
  formatAmount,
  productName,
  requirePrice,
} from './catalogue.ts'
import { applyMetadata, clone, type EngineCore, type Origin } from './core.ts'
import { createCustomer, requireCustomer } from './customers.ts'
import { emit } from './events.ts'
import { attachCard } from './payment-methods.ts'
import { createSubscription } from './subscriptions.ts'

export type CheckoutResult =
  | { ok: true; session: CheckoutSession; redirectUrl: string | null }
  | { ok: false; rejection: RejectedCard }

const CHECKOUT_LIFETIME = DAY

function customerDetails(
  email: string | null,
  name: string | null,
): CheckoutSession['customer_details'] {
  return {
    address: null,
    business_name: null,
    email,
    individual_name: null,
    name,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  }
}

export function createCheckoutSession(
  core: EngineCore,
  params: CheckoutCreateParams,
  publicUrl: string,
): CheckoutSession {
  if (params.mode !== 'subscription') {
    throw invalidRequest(
      `The Tessera Stripe stand-in supports mode=subscription only (got mode=${params.mode}).`,
      'mode',
    )
  }
  const lineItems = params.line_items
  if (!lineItems) {
    throw invalidRequest('Missing required param: line_items.', 'line_items', 'parameter_missing')
  }
  if (params.customer && params.customer_email) {
    throw invalidRequest(
      'You may only specify one of these parameters: customer, customer_email.',
      'customer_email',
    )
  }
  const customer = params.customer ? requireCustomer(core, params.customer, 'customer') : null
  const prices = lineItems.map((item, i) => {
    const price = requirePrice(core, item.price, `line_items[${i}][price]`)
    if (!price.active) {
      throw invalidRequest(
        `The price specified is inactive. This field only accepts active prices.`,
        `line_items[${i}][price]`,
      )
    }
    return price
  })
  const first = prices[0]
  if (!first) throw invalidRequest('Missing required param: line_items.', 'line_items')
  prices.forEach((price, i) => {
    if (
      price.currency !== first.currency ||
      price.recurring.interval !== first.recurring.interval ||
      price.recurring.interval_count !== first.recurring.interval_count
    ) {
      throw invalidRequest(
        'All prices in a subscription must have the same currency and billing interval.',
        `line_items[${i}][price]`,
      )
    }
  })
  const now = core.now()
  if (
    params.expires_at !== undefined &&
    (params.expires_at < now + 1800 || params.expires_at > now + DAY)
  ) {
    throw invalidRequest(
      'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.',
      'expires_at',
    )
  }
  const subtotal = lineItems.reduce(
    (sum, item, i) => sum + (prices[i]?.unit_amount ?? 0) * (item.quantity ?? 1),
    0,
  )
  const trial = params.subscription_data?.trial_period_days ?? null
  const id = `cs_test_${newId('x', 56).slice(2)}`
  const session = newCheckoutSession({
    id,
    created: now,
    allow_promotion_codes: params.allow_promotion_codes ?? null,
    amount_subtotal: trial ? 0 : subtotal,
    amount_total: trial ? 0 : subtotal,
    cancel_url: params.cancel_url ?? null,
    client_reference_id: params.client_reference_id ?? null,
    currency: first.currency,
    customer: customer?.id ?? null,
    customer_creation: customer ? null : 'always',
    customer_details: customer ? customerDetails(customer.email, customer.name) : null,
    customer_email: params.customer_email ?? null,
    expires_at: params.expires_at ?? now + CHECKOUT_LIFETIME,
    metadata: applyMetadata({}, params.metadata),
    payment_method_types: params.payment_method_types ?? ['card'],
    success_url: params.success_url ?? null,
    url: `${publicUrl}/checkout/${id}`,
  })
  core.state.checkoutSessions[id] = session
  core.state.checkoutExtras[id] = {
    lineItems: lineItems.map((item) => ({ price: item.price, quantity: item.quantity ?? 1 })),
    subscriptionMetadata: applyMetadata({}, params.subscription_data?.metadata),
    trialPeriodDays: trial,
  }
  return clone(session)
}

function requireSession(core: EngineCore, id: string): CheckoutSession {
  const session = core.state.checkoutSessions[id]
  if (!session) throw resourceMissing('checkout.session', id)
  return session
}

export function retrieveCheckoutSession(core: EngineCore, id: string): CheckoutSession {
  return clone(requireSession(core, id))
}

export function listCheckoutSessions(core: EngineCore): CheckoutSession[] {
  return Object.values(core.state.checkoutSessions).reverse().map(clone)
}

export function checkoutLineItems(core: EngineCore, id: string): ApiList<CheckoutLineItem> {
  const session = requireSession(core, id)
  const extras = core.state.checkoutExtras[id]
  const data = (extras?.lineItems ?? []).map((item): CheckoutLineItem => {
    const price = clone(requirePrice(core, item.price, 'price'))
    const amount = price.unit_amount * item.quantity
    return {
      id: `li_${session.id.slice(8, 32)}${item.price.slice(-4)}`,
      object: 'item',
      amount_discount: 0,
      amount_subtotal: amount,
      amount_tax: 0,
      amount_total: amount,
      currency: price.currency,
      description: productName(core, price),
      price,
      quantity: item.quantity,
    }
  })
  return { object: 'list', data, has_more: false, url: `/v1/checkout/sessions/${id}/line_items` }
}

/** What the hosted checkout page shows: the plan lines and the trial, if any. */
export function checkoutSummary(core: EngineCore, id: string) {
  const session = requireSession(core, id)
  const extras = core.state.checkoutExtras[id]
  const lines = (extras?.lineItems ?? []).map((item) => {
    const price = requirePrice(core, item.price, 'price')
    return {
      productName: productName(core, price),
      quantity: item.quantity,
      priceText: describePrice(price),
      amount: price.unit_amount * item.quantity,
    }
  })
  const total = lines.reduce((sum, line) => sum + line.amount, 0)
  const customer = session.customer ? core.state.customers[session.customer] : undefined
  const firstPrice = core.state.prices[extras?.lineItems[0]?.price ?? '']
  return {
    session: clone(session),
    lines,
    totalText: formatAmount(total, session.currency),
    intervalText: firstPrice ? describeInterval(firstPrice) : '',
    trialPeriodDays: extras?.trialPeriodDays ?? null,
    email: customer?.email ?? session.customer_email,
    needsEmail: !customer && !session.customer_email,
  }
}

export function expireCheckoutSession(
  core: EngineCore,
  id: string,
  origin: Origin,
): CheckoutSession {
  const session = requireSession(core, id)
  if (session.status !== 'open') {
    throw invalidState(`Only Checkout Sessions with a status of open can be expired.`)
  }
  expireSession(core, session, origin)
  return clone(session)
}

export function expireSession(core: EngineCore, session: CheckoutSession, origin: Origin): void {
  session.status = 'expired'
  session.url = null
  emit(core, 'checkout.session.expired', session, undefined, origin)
}

/**
 * The hosted page's "Pay and subscribe": checks the card, then creates the customer (if the
 * session has none), the payment method, the subscription and its first invoice.
 */
export function completeCheckout(
  core: EngineCore,
  id: string,
  input: CardInput & { email?: string },
  origin: Origin,
): CheckoutResult {
  const session = requireSession(core, id)
  if (session.status !== 'open') {
    throw invalidState(`This Checkout Session is ${session.status} and can no longer be paid.`)
  }
  const extras = core.state.checkoutExtras[id]
  if (!extras) throw invalidState('This Checkout Session has no line items.')
  const email = session.customer_email ?? input.email?.trim() ?? ''
  if (!session.customer && !/^[^@\s]+@[^@\s]+$/.test(email)) {
    return {
      ok: false,
      rejection: { ok: false, field: 'email', message: 'Your email address is incomplete.' },
    }
  }
  const card = checkCard(input, core.now())
  if (!card.ok) return { ok: false, rejection: card }
  let customer: Customer
  if (session.customer) {
    customer = requireCustomer(core, session.customer, 'customer')
  } else {
    const created = createCustomer(core, { email, name: card.name }, origin)
    customer = requireCustomer(core, created.id, 'customer')
  }
  const pm = attachCard(core, card, customer.id, customer.email)
  const sub = createSubscription(core, customer, extras, pm.id, origin)
  session.status = 'complete'
  session.payment_status = extras.trialPeriodDays ? 'no_payment_required' : 'paid'
  session.customer = customer.id
  session.subscription = sub.id
  session.invoice = sub.latest_invoice
  session.url = null
  session.customer_details = customerDetails(customer.email, card.name)
  emit(core, 'checkout.session.completed', session, undefined, origin)
  const redirectUrl = session.success_url
    ? session.success_url.split('{CHECKOUT_SESSION_ID}').join(session.id)
    : null
  return { ok: true, session: clone(session), redirectUrl }
}
