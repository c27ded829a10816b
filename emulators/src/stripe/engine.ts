// The stand-in's behaviour: objects, their state changes, and the events each change emits.
// Everything here is synchronous, so a request's check-then-write cannot interleave with another.
import {
  RENEWAL_DECLINE,
  checkCard,
  type AcceptedCard,
  type CardInput,
  type RejectedCard,
} from './cards.ts'
import { DAY, addInterval, realNow } from './clock.ts'
import { cardError, invalidRequest, invalidState, resourceMissing, type Decline } from './errors.ts'
import {
  newCheckoutSession,
  newCustomer,
  newInvoice,
  newInvoiceLine,
  newPaymentMethod,
  newPortalSession,
  newPrice,
  newProduct,
  newSubscription,
  newSubscriptionItem,
} from './factories.ts'
import { newId } from './ids.ts'
import { customerMatcher } from './search.ts'
import {
  planOf,
  type ApiList,
  type CheckoutLineItem,
  type CheckoutSession,
  type Customer,
  type DeletedCustomer,
  type Invoice,
  type BillingReason,
  type Metadata,
  type PaymentMethod,
  type PortalSession,
  type Price,
  type Product,
  type StripeEvent,
  type Subscription,
  type SubscriptionStatus,
} from './objects.ts'
import type {
  CheckoutCreateParams,
  CustomerCreateParams,
  CustomerUpdateParams,
  PortalCreateParams,
  SubscriptionUpdateParams,
} from './schemas.ts'
import type { SeedPrice } from './seed.ts'
import { emptyState, type StripeState } from './state.ts'

/** What caused a change: the API request (its id and idempotency key), or nothing (the clock). */
export interface Origin {
  requestId: string | null
  idempotencyKey: string | null
}

export const AUTOMATIC: Origin = { requestId: null, idempotencyKey: null }

export interface EngineOptions {
  apiVersion: string
  accountName: string
  seed: readonly SeedPrice[]
  onEvent: (event: StripeEvent) => void
}

export type CheckoutResult =
  | { ok: true; session: CheckoutSession; redirectUrl: string | null }
  | { ok: false; rejection: RejectedCard }

export interface ClockStep {
  at: number
  kind: 'renewal' | 'cancellation' | 'trial_will_end' | 'checkout_expired'
  id: string
}

const LIVE_STATUSES: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due']
const CHECKOUT_LIFETIME = DAY
const TRIAL_WILL_END_NOTICE = 3 * DAY
const MAX_ADVANCE = 10 * 366 * DAY
const EVENT_RETENTION = 30 * DAY

function clone<T>(value: T): T {
  return structuredClone(value)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Stripe's `previous_attributes`: the old values of the fields that changed. Nested objects are
 * diffed one level down; a list (subscription items) is given whole, as Stripe does.
 */
export function previousAttributes<T extends object>(before: T, after: T): Record<string, unknown> {
  const previous: Record<string, unknown> = {}
  const old = new Map<string, unknown>(Object.entries(before))
  for (const [key, now] of Object.entries(after)) {
    const was = old.get(key)
    if (JSON.stringify(was) === JSON.stringify(now)) continue
    if (isPlainObject(was) && isPlainObject(now) && was.object !== 'list') {
      previous[key] = previousAttributes(was, now)
    } else if (isPlainObject(was) && was.object === 'list') {
      previous[key] = { data: was.data }
    } else {
      previous[key] = was === undefined ? null : was
    }
  }
  return previous
}

function applyMetadata(
  target: Metadata,
  update: '' | Record<string, string> | undefined,
): Metadata {
  if (update === undefined) return target
  if (update === '') return {}
  const next = { ...target }
  // An empty value unsets that key, as in Stripe.
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete next[k]
    else next[k] = v
  }
  return next
}

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

function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(amount / 100)
}

export class StripeEngine {
  state: StripeState

  constructor(private readonly options: EngineOptions) {
    this.state = emptyState()
    this.applySeed()
  }

  // ---------------------------------------------------------------- clock

  now(): number {
    return realNow() + this.state.clockOffset
  }

  private moveClockTo(at: number): void {
    if (at > this.now()) this.state.clockOffset = at - realNow()
  }

  /** Runs everything due up to now (renewals, expiries) that real time has reached. */
  tick(): ClockStep[] {
    return this.runDue(this.now())
  }

  /** Moves the clock forward, running renewals, cancellations and trial ends in order. */
  advance(seconds: number): ClockStep[] {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_ADVANCE) {
      throw invalidRequest(
        `seconds must be a whole number between 0 and ${MAX_ADVANCE}.`,
        'seconds',
      )
    }
    const target = this.now() + seconds
    const steps = this.runDue(target)
    this.moveClockTo(target)
    return steps
  }

  /** When events were last pruned, and in which state: once per emulated second is enough. */
  private pruned: { at: number; state: StripeState } | null = null

  /** Stripe keeps events for 30 days and idempotency keys for 24 hours; so does the stand-in. */
  private pruneEvents(): void {
    const now = this.now()
    // Every API request ticks: walking thousands of events and keys on each one made the
    // stand-in a noticeable share of a webhook benchmark's CPU. Nothing expires within a second.
    if (this.pruned !== null && this.pruned.at === now && this.pruned.state === this.state) return
    this.pruned = { at: now, state: this.state }
    const horizon = now - EVENT_RETENTION
    for (const id in this.state.events) {
      const event = this.state.events[id]!
      if (event.created >= horizon) break
      if (this.state.deliveries[id]?.status === 'pending') continue
      delete this.state.events[id]
      delete this.state.deliveries[id]
    }
    for (const [key, entry] of Object.entries(this.state.idempotency)) {
      if (!entry.inFlight && entry.created + DAY <= now) delete this.state.idempotency[key]
    }
  }

  private runDue(until: number): ClockStep[] {
    this.pruneEvents()
    const steps: ClockStep[] = []
    // Each step moves its object's next due time forward, so this ends; the bound is a guard.
    for (let guard = 0; guard < 100_000; guard++) {
      const next = this.nextDue(until)
      if (!next) break
      this.moveClockTo(next.at)
      next.run()
      steps.push({ at: next.at, kind: next.kind, id: next.id })
    }
    return steps
  }

  private nextDue(until: number): (ClockStep & { run: () => void }) | null {
    // Called on every API request: the candidates are compared as plain values and only the
    // earliest one gets its step built (no object or closure per subscription and session).
    let bestAt = Infinity
    let best: (() => ClockStep & { run: () => void }) | null = null
    const better = (at: number) => at <= until && at < bestAt
    for (const sub of Object.values(this.state.subscriptions)) {
      if (!LIVE_STATUSES.includes(sub.status)) continue
      const periodEnd = this.periodEnd(sub)
      const cancelAt = sub.cancel_at
      if (cancelAt !== null && cancelAt <= periodEnd) {
        if (better(cancelAt)) {
          bestAt = cancelAt
          best = () => ({
            at: cancelAt,
            kind: 'cancellation',
            id: sub.id,
            run: () => this.cancelNow(sub, AUTOMATIC, 'cancellation_requested'),
          })
        }
      } else if (better(periodEnd)) {
        bestAt = periodEnd
        best = () => ({ at: periodEnd, kind: 'renewal', id: sub.id, run: () => this.renew(sub) })
      }
      if (
        sub.status === 'trialing' &&
        sub.trial_end !== null &&
        sub.trial_start !== null &&
        !this.state.trialWillEndSent[sub.id] &&
        sub.trial_end - TRIAL_WILL_END_NOTICE > sub.trial_start &&
        better(sub.trial_end - TRIAL_WILL_END_NOTICE)
      ) {
        const at = sub.trial_end - TRIAL_WILL_END_NOTICE
        bestAt = at
        best = () => ({
          at,
          kind: 'trial_will_end',
          id: sub.id,
          run: () => {
            this.state.trialWillEndSent[sub.id] = true
            this.emit('customer.subscription.trial_will_end', sub, undefined, AUTOMATIC)
          },
        })
      }
    }
    for (const session of Object.values(this.state.checkoutSessions)) {
      if (session.status !== 'open' || !better(session.expires_at)) continue
      bestAt = session.expires_at
      best = () => ({
        at: session.expires_at,
        kind: 'checkout_expired',
        id: session.id,
        run: () => this.expireSession(session, AUTOMATIC),
      })
    }
    return best === null ? null : best()
  }

  // ---------------------------------------------------------------- catalogue

  private applySeed(): void {
    const now = this.now()
    for (const seed of this.options.seed) {
      let product = Object.values(this.state.products).find(
        (candidate) => candidate.name === seed.productName && candidate.active,
      )
      if (!product) {
        product = newProduct(seed.productName, now)
        this.state.products[product.id] = product
      }
      const current = Object.values(this.state.prices).find((p) => p.lookup_key === seed.lookupKey)
      const matches =
        current !== undefined &&
        current.product === product.id &&
        current.unit_amount === seed.unitAmount &&
        current.currency === seed.currency &&
        current.recurring.interval === seed.interval
      if (matches) continue
      if (current) {
        // A changed catalogue moves the lookup key to a new price, like `transfer_lookup_key`.
        current.lookup_key = null
        current.active = false
      }
      const price = newPrice({
        created: now,
        currency: seed.currency,
        lookup_key: seed.lookupKey,
        product: product.id,
        unit_amount: seed.unitAmount,
        interval: seed.interval,
      })
      this.state.prices[price.id] = price
      product.default_price = price.id
      product.updated = now
    }
  }

  listProducts(): Product[] {
    return Object.values(this.state.products).reverse().map(clone)
  }

  retrieveProduct(id: string): Product {
    const product = this.state.products[id]
    if (!product) throw resourceMissing('product', id)
    return clone(product)
  }

  listPrices(): Price[] {
    return Object.values(this.state.prices).reverse().map(clone)
  }

  retrievePrice(id: string): Price {
    return clone(this.requirePrice(id, 'id'))
  }

  private requirePrice(id: string, param: string): Price {
    const price = this.state.prices[id]
    if (!price) throw resourceMissing('price', id, param)
    return price
  }

  /** Active recurring prices, cheapest first: the plans a portal offers. */
  plans(): Price[] {
    return Object.values(this.state.prices)
      .filter((price) => price.active)
      .sort((a, b) => a.unit_amount - b.unit_amount)
      .map(clone)
  }

  productName(price: Price): string {
    return this.state.products[price.product]?.name ?? price.product
  }

  /** "per month", "every 3 months" */
  describeInterval(price: Price): string {
    const interval = price.recurring.interval
    return price.recurring.interval_count === 1
      ? `per ${interval}`
      : `every ${price.recurring.interval_count} ${interval}s`
  }

  /** "$15.00 per month" */
  describePrice(price: Price): string {
    return `${formatAmount(price.unit_amount, price.currency)} ${this.describeInterval(price)}`
  }

  formatAmount(amount: number, currency: string): string {
    return formatAmount(amount, currency)
  }

  // ---------------------------------------------------------------- events

  private emit(
    type: string,
    object: unknown,
    previous: Record<string, unknown> | undefined,
    origin: Origin,
  ): StripeEvent {
    const event: StripeEvent = {
      id: newId('evt', 24),
      object: 'event',
      api_version: this.options.apiVersion,
      created: this.now(),
      data: {
        object: clone(object),
        ...(previous && Object.keys(previous).length > 0 ? { previous_attributes: previous } : {}),
      },
      livemode: false,
      pending_webhooks: 0,
      request: { id: origin.requestId, idempotency_key: origin.idempotencyKey },
      type,
    }
    this.state.events[event.id] = event
    this.options.onEvent(event)
    return event
  }

  listEvents(): StripeEvent[] {
    return Object.values(this.state.events).reverse().map(clone)
  }

  retrieveEvent(id: string): StripeEvent {
    const event = this.state.events[id]
    if (!event) throw resourceMissing('event', id)
    return clone(event)
  }

  // ---------------------------------------------------------------- customers

  private requireCustomer(id: string, param: string): Customer {
    const customer = this.state.customers[id]
    if (!customer || this.state.deletedCustomers[id]) throw resourceMissing('customer', id, param)
    return customer
  }

  createCustomer(params: CustomerCreateParams, origin: Origin): Customer {
    const customer = newCustomer({
      created: this.now(),
      description: params.description ?? null,
      email: params.email ?? null,
      metadata: applyMetadata({}, params.metadata),
      name: params.name ?? null,
      phone: params.phone ?? null,
    })
    this.state.customers[customer.id] = customer
    this.emit('customer.created', customer, undefined, origin)
    return clone(customer)
  }

  retrieveCustomer(id: string): Customer | DeletedCustomer {
    const customer = this.state.customers[id]
    if (!customer) throw resourceMissing('customer', id)
    if (this.state.deletedCustomers[id]) return { id, object: 'customer', deleted: true }
    return clone(customer)
  }

  updateCustomer(id: string, params: CustomerUpdateParams, origin: Origin): Customer {
    const customer = this.requireCustomer(id, 'id')
    const before = clone(customer)
    if (params.description !== undefined) customer.description = params.description
    if (params.email !== undefined) customer.email = params.email
    if (params.name !== undefined) customer.name = params.name
    if (params.phone !== undefined) customer.phone = params.phone
    customer.metadata = applyMetadata(customer.metadata, params.metadata)
    const pm = params.invoice_settings?.default_payment_method
    if (pm !== undefined) {
      if (pm !== null && this.state.paymentMethods[pm]?.customer !== id) {
        throw invalidRequest(
          `No such PaymentMethod: '${pm}'; it is not attached to customer ${id}.`,
          'invoice_settings[default_payment_method]',
          'resource_missing',
        )
      }
      customer.invoice_settings.default_payment_method = pm
    }
    const previous = previousAttributes(before, customer)
    if (Object.keys(previous).length > 0) this.emit('customer.updated', customer, previous, origin)
    return clone(customer)
  }

  deleteCustomer(id: string, origin: Origin): DeletedCustomer {
    const customer = this.requireCustomer(id, 'id')
    // Deleting a customer cancels their subscriptions at once, as in Stripe.
    for (const sub of Object.values(this.state.subscriptions)) {
      if (sub.customer === id && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
        this.cancelNow(sub, origin, 'cancellation_requested')
      }
    }
    this.state.deletedCustomers[id] = true
    this.emit('customer.deleted', customer, undefined, origin)
    return { id, object: 'customer', deleted: true }
  }

  listCustomers(): Customer[] {
    return Object.values(this.state.customers)
      .filter((c) => !this.state.deletedCustomers[c.id])
      .reverse()
      .map(clone)
  }

  /** Stripe's search language, for the clauses Tessera might use: `email:'a@b'`, `metadata['k']:'v'`. */
  searchCustomers(query: string): Customer[] {
    return this.listCustomers().filter(customerMatcher(query))
  }

  // ---------------------------------------------------------------- payment methods

  retrievePaymentMethod(id: string): PaymentMethod {
    const pm = this.state.paymentMethods[id]
    if (!pm) throw resourceMissing('PaymentMethod', id)
    return clone(pm)
  }

  private attachCard(card: AcceptedCard, customerId: string, email: string | null): PaymentMethod {
    const pm = newPaymentMethod(card, customerId, email, this.now())
    this.state.paymentMethods[pm.id] = pm
    this.state.cardBehaviours[pm.id] = card.behaviour
    return pm
  }

  /** Describes a stored card for people: "Visa ending in 4242". */
  describePaymentMethod(id: string | null): string | null {
    const pm = id ? this.state.paymentMethods[id] : undefined
    if (!pm) return null
    const brand = pm.card.brand.charAt(0).toUpperCase() + pm.card.brand.slice(1)
    return `${brand} ending in ${pm.card.last4}`
  }

  // ---------------------------------------------------------------- checkout

  createCheckoutSession(params: CheckoutCreateParams, publicUrl: string): CheckoutSession {
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
    const customer = params.customer ? this.requireCustomer(params.customer, 'customer') : null
    const prices = lineItems.map((item, i) => {
      const price = this.requirePrice(item.price, `line_items[${i}][price]`)
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
    const now = this.now()
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
    this.state.checkoutSessions[id] = session
    this.state.checkoutExtras[id] = {
      lineItems: lineItems.map((item) => ({ price: item.price, quantity: item.quantity ?? 1 })),
      subscriptionMetadata: applyMetadata({}, params.subscription_data?.metadata),
      trialPeriodDays: trial,
    }
    return clone(session)
  }

  private requireSession(id: string): CheckoutSession {
    const session = this.state.checkoutSessions[id]
    if (!session) throw resourceMissing('checkout.session', id)
    return session
  }

  retrieveCheckoutSession(id: string): CheckoutSession {
    return clone(this.requireSession(id))
  }

  listCheckoutSessions(): CheckoutSession[] {
    return Object.values(this.state.checkoutSessions).reverse().map(clone)
  }

  checkoutLineItems(id: string): ApiList<CheckoutLineItem> {
    const session = this.requireSession(id)
    const extras = this.state.checkoutExtras[id]
    const data = (extras?.lineItems ?? []).map((item): CheckoutLineItem => {
      const price = clone(this.requirePrice(item.price, 'price'))
      const amount = price.unit_amount * item.quantity
      return {
        id: `li_${session.id.slice(8, 32)}${item.price.slice(-4)}`,
        object: 'item',
        amount_discount: 0,
        amount_subtotal: amount,
        amount_tax: 0,
        amount_total: amount,
        currency: price.currency,
        description: this.productName(price),
        price,
        quantity: item.quantity,
      }
    })
    return { object: 'list', data, has_more: false, url: `/v1/checkout/sessions/${id}/line_items` }
  }

  /** What the hosted checkout page shows: the plan lines and the trial, if any. */
  checkoutSummary(id: string) {
    const session = this.requireSession(id)
    const extras = this.state.checkoutExtras[id]
    const lines = (extras?.lineItems ?? []).map((item) => {
      const price = this.requirePrice(item.price, 'price')
      return {
        productName: this.productName(price),
        quantity: item.quantity,
        priceText: this.describePrice(price),
        amount: price.unit_amount * item.quantity,
      }
    })
    const total = lines.reduce((sum, line) => sum + line.amount, 0)
    const customer = session.customer ? this.state.customers[session.customer] : undefined
    const firstPrice = this.state.prices[extras?.lineItems[0]?.price ?? '']
    return {
      session: clone(session),
      lines,
      totalText: formatAmount(total, session.currency),
      intervalText: firstPrice ? this.describeInterval(firstPrice) : '',
      trialPeriodDays: extras?.trialPeriodDays ?? null,
      email: customer?.email ?? session.customer_email,
      needsEmail: !customer && !session.customer_email,
    }
  }

  expireCheckoutSession(id: string, origin: Origin): CheckoutSession {
    const session = this.requireSession(id)
    if (session.status !== 'open') {
      throw invalidState(`Only Checkout Sessions with a status of open can be expired.`)
    }
    this.expireSession(session, origin)
    return clone(session)
  }

  private expireSession(session: CheckoutSession, origin: Origin): void {
    session.status = 'expired'
    session.url = null
    this.emit('checkout.session.expired', session, undefined, origin)
  }

  /**
   * The hosted page's "Pay and subscribe": checks the card, then creates the customer (if the
   * session has none), the payment method, the subscription and its first invoice.
   */
  completeCheckout(
    id: string,
    input: CardInput & { email?: string },
    origin: Origin,
  ): CheckoutResult {
    const session = this.requireSession(id)
    if (session.status !== 'open') {
      throw invalidState(`This Checkout Session is ${session.status} and can no longer be paid.`)
    }
    const extras = this.state.checkoutExtras[id]
    if (!extras) throw invalidState('This Checkout Session has no line items.')
    const email = session.customer_email ?? input.email?.trim() ?? ''
    if (!session.customer && !/^[^@\s]+@[^@\s]+$/.test(email)) {
      return {
        ok: false,
        rejection: { ok: false, field: 'email', message: 'Your email address is incomplete.' },
      }
    }
    const card = checkCard(input, this.now())
    if (!card.ok) return { ok: false, rejection: card }
    let customer: Customer
    if (session.customer) {
      customer = this.requireCustomer(session.customer, 'customer')
    } else {
      const created = this.createCustomer({ email, name: card.name }, origin)
      customer = this.requireCustomer(created.id, 'customer')
    }
    const pm = this.attachCard(card, customer.id, customer.email)
    const sub = this.createSubscription(customer, extras, pm.id, origin)
    session.status = 'complete'
    session.payment_status = extras.trialPeriodDays ? 'no_payment_required' : 'paid'
    session.customer = customer.id
    session.subscription = sub.id
    session.invoice = sub.latest_invoice
    session.url = null
    session.customer_details = customerDetails(customer.email, card.name)
    this.emit('checkout.session.completed', session, undefined, origin)
    const redirectUrl = session.success_url
      ? session.success_url.split('{CHECKOUT_SESSION_ID}').join(session.id)
      : null
    return { ok: true, session: clone(session), redirectUrl }
  }

  // ---------------------------------------------------------------- subscriptions

  private requireSubscription(id: string, param = 'id'): Subscription {
    const sub = this.state.subscriptions[id]
    if (!sub) throw resourceMissing('subscription', id, param)
    return sub
  }

  private periodEnd(sub: Subscription): number {
    return sub.items.data[0]?.current_period_end ?? sub.created
  }

  private createSubscription(
    customer: Customer,
    extras: {
      lineItems: { price: string; quantity: number }[]
      subscriptionMetadata: Metadata
      trialPeriodDays: number | null
    },
    paymentMethodId: string,
    origin: Origin,
  ): Subscription {
    const now = this.now()
    const id = newId('sub', 24)
    const firstPrice = this.requirePrice(extras.lineItems[0]?.price ?? '', 'line_items[0][price]')
    const trialEnd = extras.trialPeriodDays ? now + extras.trialPeriodDays * DAY : null
    const periodEnd =
      trialEnd ??
      addInterval(now, firstPrice.recurring.interval, firstPrice.recurring.interval_count, now)
    const items = extras.lineItems.map((item) =>
      newSubscriptionItem(
        id,
        this.requirePrice(item.price, 'price'),
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
    this.state.subscriptions[id] = sub
    const invoice = this.createInvoice(sub, 'subscription_create', now, now, trialEnd !== null)
    sub.latest_invoice = invoice.id
    this.emit('customer.subscription.created', sub, undefined, origin)
    this.emit('invoice.created', invoice, undefined, origin)
    this.collect(invoice, sub, true, origin)
    return sub
  }

  retrieveSubscription(id: string): Subscription {
    return clone(this.requireSubscription(id))
  }

  listSubscriptions(): Subscription[] {
    return Object.values(this.state.subscriptions).reverse().map(clone)
  }

  /** The customer's subscriptions that have not ended, newest first (what the portal shows). */
  liveSubscriptions(customerId: string): Subscription[] {
    return this.listSubscriptions().filter(
      (sub) => sub.customer === customerId && LIVE_STATUSES.includes(sub.status),
    )
  }

  updateSubscription(id: string, params: SubscriptionUpdateParams, origin: Origin): Subscription {
    const sub = this.requireSubscription(id)
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
    const now = this.now()
    let prorationInvoice: { amount: number } | null = null

    if (params.items) {
      const result = this.changeItems(sub, params.items)
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
        prorationInvoice = { amount: -1 }
      } else if (params.proration_behavior === 'always_invoice') {
        const periodStart = sub.items.data[0]?.current_period_start ?? now
        const periodEnd = this.periodEnd(sub)
        const remaining = Math.max(0, periodEnd - now) / Math.max(1, periodEnd - periodStart)
        const delta = Math.round((this.amountOf(sub) - result.previousAmount) * remaining)
        if (delta > 0) prorationInvoice = { amount: delta }
      }
    }
    if (params.cancel_at_period_end !== undefined) {
      this.setCancelAtPeriodEnd(sub, params.cancel_at_period_end)
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
        sub.cancel_at_period_end = params.cancel_at === this.periodEnd(sub)
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
      const pm = this.state.paymentMethods[params.default_payment_method]
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

    if (prorationInvoice) {
      const invoice = this.createInvoice(
        sub,
        'subscription_update',
        sub.items.data[0]?.current_period_start ?? now,
        this.periodEnd(sub),
        false,
        prorationInvoice.amount >= 0 ? prorationInvoice.amount : undefined,
      )
      sub.latest_invoice = invoice.id
      this.emit('invoice.created', invoice, undefined, origin)
      const paid = this.collect(invoice, sub, false, origin)
      if (!paid && params.payment_behavior === 'error_if_incomplete') {
        // Stripe leaves the subscription as it was and voids the attempt.
        invoice.status = 'void'
        invoice.status_transitions.voided_at = this.now()
        Object.assign(sub, before)
        throw cardError(RENEWAL_DECLINE)
      }
    }
    this.emitSubscriptionUpdated(before, sub, origin)
    return clone(sub)
  }

  private amountOf(sub: Subscription): number {
    return sub.items.data.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0)
  }

  private changeItems(sub: Subscription, changes: NonNullable<SubscriptionUpdateParams['items']>) {
    const previousAmount = this.amountOf(sub)
    const previousInterval = sub.items.data[0]?.price.recurring
    const start = sub.items.data[0]?.current_period_start ?? this.now()
    const end = this.periodEnd(sub)
    changes.forEach((change, i) => {
      const existingIndex = change.id
        ? sub.items.data.findIndex((item) => item.id === change.id)
        : -1
      if (change.id && existingIndex === -1) {
        throw resourceMissing('subscription item', change.id, `items[${i}][id]`)
      }
      const existing = sub.items.data[existingIndex]
      if (change.deleted) {
        if (!existing)
          throw invalidRequest(`Missing required param: items[${i}][id].`, `items[${i}][id]`)
        sub.items.data.splice(existingIndex, 1)
        return
      }
      const price = change.price ? this.requirePrice(change.price, `items[${i}][price]`) : undefined
      if (price && !price.active) {
        throw invalidRequest('The price specified is inactive.', `items[${i}][price]`)
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
            `items[${i}][price]`,
            'parameter_missing',
          )
        sub.items.data.push(
          newSubscriptionItem(sub.id, price, change.quantity ?? 1, { start, end }, this.now()),
        )
      }
    })
    if (sub.items.data.length === 0) {
      throw invalidRequest('A subscription must have at least one active plan.', 'items')
    }
    const first = sub.items.data[0]?.price.recurring
    if (!first) throw invalidRequest('A subscription must have at least one active plan.', 'items')
    for (const item of sub.items.data) {
      if (
        item.price.currency !== sub.currency ||
        item.price.recurring.interval !== first.interval ||
        item.price.recurring.interval_count !== first.interval_count
      ) {
        throw invalidRequest(
          'All prices in a subscription must have the same currency and billing interval.',
          'items',
        )
      }
    }
    sub.items.total_count = sub.items.data.length
    const intervalChanged =
      previousInterval !== undefined &&
      (previousInterval.interval !== first.interval ||
        previousInterval.interval_count !== first.interval_count)
    return { previousAmount, intervalChanged, interval: first }
  }

  private setCancelAtPeriodEnd(sub: Subscription, cancel: boolean): void {
    if (cancel) {
      sub.cancel_at_period_end = true
      sub.cancel_at = this.periodEnd(sub)
      sub.canceled_at = this.now()
      sub.cancellation_details.reason = 'cancellation_requested'
    } else {
      sub.cancel_at_period_end = false
      sub.cancel_at = null
      sub.canceled_at = null
      sub.cancellation_details = { comment: null, feedback: null, reason: null }
    }
  }

  private emitSubscriptionUpdated(before: Subscription, sub: Subscription, origin: Origin): void {
    const previous = previousAttributes(before, sub)
    if (Object.keys(previous).length > 0) {
      this.emit('customer.subscription.updated', sub, previous, origin)
    }
  }

  cancelSubscription(
    id: string,
    details: { comment?: string | null; feedback?: string | null } | undefined,
    origin: Origin,
  ): Subscription {
    const sub = this.requireSubscription(id)
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      throw invalidState(`This subscription has already been canceled: ${id}.`)
    }
    if (details?.comment !== undefined) sub.cancellation_details.comment = details.comment
    if (details?.feedback !== undefined) sub.cancellation_details.feedback = details.feedback
    this.cancelNow(sub, origin, 'cancellation_requested')
    return clone(sub)
  }

  private cancelNow(
    sub: Subscription,
    origin: Origin,
    reason: Subscription['cancellation_details']['reason'],
  ): void {
    const now = this.now()
    sub.status = 'canceled'
    sub.ended_at = now
    sub.canceled_at = sub.canceled_at ?? now
    sub.cancellation_details.reason = reason
    this.emit('customer.subscription.deleted', sub, undefined, origin)
  }

  /** A period end: bill the next period (charging the saved card), or end a trial. */
  private renew(sub: Subscription): void {
    const before = clone(sub)
    const oldStart = sub.items.data[0]?.current_period_start ?? sub.created
    const start = this.periodEnd(sub)
    const first = sub.items.data[0]?.price.recurring
    if (!first) return
    const anchor = sub.billing_cycle_anchor
    const end = addInterval(start, first.interval, first.interval_count, anchor)
    for (const item of sub.items.data) {
      item.current_period_start = start
      item.current_period_end = end
    }
    const invoice = this.createInvoice(sub, 'subscription_cycle', oldStart, start, false)
    sub.latest_invoice = invoice.id
    this.emit('invoice.created', invoice, undefined, AUTOMATIC)
    this.collect(invoice, sub, false, AUTOMATIC)
    this.emitSubscriptionUpdated(before, sub, AUTOMATIC)
  }

  // ---------------------------------------------------------------- invoices

  private createInvoice(
    sub: Subscription,
    reason: BillingReason,
    periodStart: number,
    periodEnd: number,
    free: boolean,
    amountOverride?: number,
  ): Invoice {
    const now = this.now()
    const customer = this.state.customers[sub.customer]
    this.state.invoiceSequence += 1
    const id = newId('in', 24)
    const lineStart = sub.items.data[0]?.current_period_start ?? now
    const lineEnd = this.periodEnd(sub)
    const lines = sub.items.data.map((item, i) => {
      const full = item.price.unit_amount * item.quantity
      const amount = free ? 0 : amountOverride !== undefined ? (i === 0 ? amountOverride : 0) : full
      const name = this.productName(item.price)
      const each = `${formatAmount(item.price.unit_amount, item.price.currency)} / ${item.price.recurring.interval}`
      return newInvoiceLine({
        amount,
        description: free
          ? `Trial period for ${name}`
          : amountOverride !== undefined
            ? `Remaining time on ${item.quantity} × ${name}`
            : `${item.quantity} × ${name} (at ${each})`,
        invoice: id,
        period: { end: lineEnd, start: lineStart },
        item,
        proration: amountOverride !== undefined,
      })
    })
    const number = `${customer?.invoice_prefix ?? 'TESSERA'}-${String(this.state.invoiceSequence).padStart(4, '0')}`
    const invoice = newInvoice({
      id,
      created: now,
      account_name: this.options.accountName,
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
    })
    if (customer) customer.next_invoice_sequence += 1
    this.state.invoices[id] = invoice
    return invoice
  }

  private chargeDecline(paymentMethodId: string | null, initial: boolean): Decline | null {
    if (!paymentMethodId) {
      return {
        code: 'card_declined',
        declineCode: 'generic_decline',
        message: 'This customer has no attached payment method.',
      }
    }
    const behaviour = this.state.cardBehaviours[paymentMethodId] ?? 'succeed'
    if (behaviour === 'fail_renewals' && !initial) return RENEWAL_DECLINE
    return null
  }

  /**
   * Tries to pay an open invoice with the subscription's card, then sets the subscription's status
   * from the outcome (active when nothing is left unpaid, past_due otherwise). Returns whether paid.
   */
  private collect(
    invoice: Invoice,
    sub: Subscription | undefined,
    initial: boolean,
    origin: Origin,
    paymentMethodId?: string,
  ): boolean {
    const customer = this.state.customers[invoice.customer]
    const pm =
      paymentMethodId ??
      sub?.default_payment_method ??
      customer?.invoice_settings.default_payment_method ??
      null
    const decline = invoice.amount_due === 0 ? null : this.chargeDecline(pm, initial)
    invoice.attempted = true
    invoice.attempt_count += 1
    const now = this.now()
    if (decline) {
      this.emit('invoice.payment_failed', invoice, undefined, origin)
    } else {
      invoice.status = 'paid'
      invoice.amount_paid = invoice.amount_due
      invoice.amount_remaining = 0
      invoice.status_transitions.paid_at = now
      this.emit('invoice.paid', invoice, undefined, origin)
      this.emit('invoice.payment_succeeded', invoice, undefined, origin)
    }
    if (sub && LIVE_STATUSES.includes(sub.status)) {
      const unpaid = Object.values(this.state.invoices).some(
        (other) =>
          other.status === 'open' && other.parent.subscription_details.subscription === sub.id,
      )
      const trialOngoing = sub.trial_end !== null && sub.trial_end > now
      sub.status = unpaid ? 'past_due' : trialOngoing ? 'trialing' : 'active'
    }
    if (customer)
      customer.delinquent = Object.values(this.state.invoices).some(
        (other) =>
          other.status === 'open' && other.customer === customer.id && other.attempt_count > 0,
      )
    return !decline
  }

  private requireInvoice(id: string): Invoice {
    const invoice = this.state.invoices[id]
    if (!invoice) throw resourceMissing('invoice', id)
    return invoice
  }

  retrieveInvoice(id: string): Invoice {
    return clone(this.requireInvoice(id))
  }

  listInvoices(): Invoice[] {
    return Object.values(this.state.invoices).reverse().map(clone)
  }

  /** `POST /v1/invoices/:id/pay`: a declined card is a 402 card error, as in Stripe. */
  payInvoice(id: string, paymentMethodId: string | undefined, origin: Origin): Invoice {
    const invoice = this.requireInvoice(id)
    if (invoice.status !== 'open') {
      throw invalidState(`Invoice is already ${invoice.status}.`)
    }
    if (
      paymentMethodId !== undefined &&
      this.state.paymentMethods[paymentMethodId]?.customer !== invoice.customer
    ) {
      throw resourceMissing('PaymentMethod', paymentMethodId, 'payment_method')
    }
    const sub = this.state.subscriptions[invoice.parent.subscription_details.subscription]
    const before = sub ? clone(sub) : undefined
    const paid = this.collect(invoice, sub, false, origin, paymentMethodId)
    if (sub && before) this.emitSubscriptionUpdated(before, sub, origin)
    if (!paid) {
      const pm = paymentMethodId ?? sub?.default_payment_method ?? null
      throw cardError(this.chargeDecline(pm, false) ?? RENEWAL_DECLINE)
    }
    return clone(invoice)
  }

  // ---------------------------------------------------------------- billing portal

  createPortalSession(params: PortalCreateParams, publicUrl: string): PortalSession {
    const customer = this.requireCustomer(params.customer, 'customer')
    if (params.configuration !== undefined && params.configuration !== 'bpc_tessera_default') {
      throw resourceMissing('billing portal configuration', params.configuration, 'configuration')
    }
    const id = newId('bps', 24)
    const session = newPortalSession({
      id,
      created: this.now(),
      customer: customer.id,
      return_url: params.return_url ?? null,
      url: `${publicUrl}/portal/${id}`,
    })
    this.state.portalSessions[id] = session
    return clone(session)
  }

  /** What the portal page shows for its customer. */
  portalView(portalId: string) {
    const portal = this.state.portalSessions[portalId]
    if (!portal) throw resourceMissing('billing_portal.session', portalId)
    const customer = this.state.customers[portal.customer]
    const subscriptions = this.liveSubscriptions(portal.customer)
    const invoices = this.listInvoices().filter((invoice) => invoice.customer === portal.customer)
    return {
      portal: clone(portal),
      customer: customer && !this.state.deletedCustomers[customer.id] ? clone(customer) : null,
      subscriptions,
      invoices,
      plans: this.plans(),
    }
  }

  private portalSubscription(portalId: string, subId: string): Subscription {
    const portal = this.state.portalSessions[portalId]
    if (!portal) throw resourceMissing('billing_portal.session', portalId)
    const sub = this.state.subscriptions[subId]
    if (!sub || sub.customer !== portal.customer) throw resourceMissing('subscription', subId)
    if (!LIVE_STATUSES.includes(sub.status)) {
      throw invalidState('This subscription has ended and can no longer be changed.')
    }
    return sub
  }

  portalCancel(portalId: string, subId: string): Subscription {
    const sub = this.portalSubscription(portalId, subId)
    return this.updateSubscription(sub.id, { cancel_at_period_end: true }, AUTOMATIC)
  }

  portalResume(portalId: string, subId: string): Subscription {
    const sub = this.portalSubscription(portalId, subId)
    return this.updateSubscription(sub.id, { cancel_at_period_end: false }, AUTOMATIC)
  }

  portalChangePlan(portalId: string, subId: string, priceId: string): Subscription {
    const sub = this.portalSubscription(portalId, subId)
    const item = sub.items.data[0]
    if (!item) throw invalidState('This subscription has no plan to change.')
    const price = this.requirePrice(priceId, 'price')
    if (!price.active) throw invalidState('That plan is no longer offered.')
    return this.updateSubscription(
      sub.id,
      { items: [{ id: item.id, price: price.id }], proration_behavior: 'create_prorations' },
      AUTOMATIC,
    )
  }

  /**
   * The portal's "Update card": saves the new card as the default for the customer and their
   * subscriptions, then retries every unpaid invoice with it.
   */
  portalUpdateCard(
    portalId: string,
    input: CardInput,
  ): { ok: true } | { ok: false; rejection: RejectedCard } {
    const portal = this.state.portalSessions[portalId]
    if (!portal) throw resourceMissing('billing_portal.session', portalId)
    const customer = this.requireCustomer(portal.customer, 'customer')
    const card = checkCard(input, this.now())
    if (!card.ok) return { ok: false, rejection: card }
    const pm = this.attachCard(card, customer.id, customer.email)
    this.updateCustomer(
      customer.id,
      { invoice_settings: { default_payment_method: pm.id } },
      AUTOMATIC,
    )
    for (const sub of Object.values(this.state.subscriptions)) {
      if (sub.customer !== customer.id || !LIVE_STATUSES.includes(sub.status)) continue
      const before = clone(sub)
      sub.default_payment_method = pm.id
      const open = Object.values(this.state.invoices).filter(
        (invoice) =>
          invoice.status === 'open' && invoice.parent.subscription_details.subscription === sub.id,
      )
      // A card that now works pays what is owed; the subscription's status follows.
      for (const invoice of open) this.collect(invoice, sub, true, AUTOMATIC)
      this.emitSubscriptionUpdated(before, sub, AUTOMATIC)
    }
    return { ok: true }
  }

  // ---------------------------------------------------------------- expand support

  /** Any object by id, for `expand[]`. */
  byId(id: string): unknown {
    const prefix = id.slice(0, id.indexOf('_'))
    const stores: Record<string, Record<string, unknown>> = {
      cus: this.state.customers,
      price: this.state.prices,
      prod: this.state.products,
      sub: this.state.subscriptions,
      in: this.state.invoices,
      pm: this.state.paymentMethods,
      cs: this.state.checkoutSessions,
      bps: this.state.portalSessions,
    }
    if (prefix === 'cus' && this.state.deletedCustomers[id])
      return { id, object: 'customer', deleted: true }
    const found = stores[prefix]?.[id]
    return found === undefined ? undefined : clone(found)
  }

  includable(object: Record<string, unknown>, field: string): unknown {
    if (
      object.object === 'checkout.session' &&
      field === 'line_items' &&
      typeof object.id === 'string'
    ) {
      return this.checkoutLineItems(object.id)
    }
    if (
      object.object === 'customer' &&
      field === 'subscriptions' &&
      typeof object.id === 'string'
    ) {
      const data = this.liveSubscriptions(object.id)
      return {
        object: 'list',
        data,
        has_more: false,
        total_count: data.length,
        url: `/v1/customers/${object.id}/subscriptions`,
      }
    }
    return undefined
  }

  // ---------------------------------------------------------------- whole state

  /** Forgets every customer, subscription and event; keeps the catalogue and restarts the clock. */
  reset(): void {
    const { products, prices } = this.state
    this.state = emptyState()
    this.state.products = products
    this.state.prices = prices
  }

  load(state: StripeState): void {
    this.state = state
    this.applySeed()
  }
}

export type { AcceptedCard, CardInput, RejectedCard }
