// The stand-in's behaviour: objects, their state changes, and the events each change emits.
// Everything here is synchronous, so a request's check-then-write cannot interleave with another.
// This class is the one door the API, the pages and the control routes use; each resource's rules
// live in `engine/` as functions of the engine's state and clock (`EngineCore`).
import type { AcceptedCard, CardInput, RejectedCard } from './cards.ts'
import { realNow } from './clock.ts'
import * as catalogue from './engine/catalogue.ts'
import * as checkout from './engine/checkout.ts'
import type { CheckoutResult } from './engine/checkout.ts'
import { clone, type EngineCore, type EngineOptions, type Origin } from './engine/core.ts'
import * as customers from './engine/customers.ts'
import * as events from './engine/events.ts'
import * as invoices from './engine/invoices.ts'
import * as lookup from './engine/lookup.ts'
import * as paymentMethods from './engine/payment-methods.ts'
import * as portal from './engine/portal.ts'
import * as preview from './engine/preview.ts'
import * as schedule from './engine/schedule.ts'
import type { ClockStep } from './engine/schedule.ts'
import * as subscriptionItems from './engine/subscription-items.ts'
import * as subscriptions from './engine/subscriptions.ts'
import type { Invoice } from './invoice-objects.ts'
import type {
  ApiList,
  Customer,
  DeletedCustomer,
  PaymentMethod,
  Price,
  Product,
  StripeEvent,
  Subscription,
  SubscriptionItem,
} from './objects.ts'
import type {
  CheckoutCreateParams,
  CustomerCreateParams,
  CustomerUpdateParams,
  InvoicePreviewParams,
  PortalCreateParams,
  SubscriptionItemUpdateParams,
  SubscriptionUpdateParams,
} from './schemas.ts'
import type { CheckoutLineItem, CheckoutSession, PortalSession } from './session-objects.ts'
import { emptyState, type StripeState } from './state.ts'

export { AUTOMATIC } from './engine/core.ts'
export { previousAttributes } from './engine/previous-attributes.ts'
export type {
  AcceptedCard,
  CardInput,
  CheckoutResult,
  ClockStep,
  EngineOptions,
  Origin,
  RejectedCard,
}

export class StripeEngine implements EngineCore {
  state: StripeState
  pruned: EngineCore['pruned'] = null

  constructor(readonly options: EngineOptions) {
    this.state = emptyState()
    catalogue.applySeed(this)
  }

  // ---------------------------------------------------------------- clock

  now(): number {
    return realNow() + this.state.clockOffset
  }

  /** Runs everything due up to now (renewals, expiries) that real time has reached. */
  tick(): ClockStep[] {
    return schedule.tick(this)
  }

  /** Moves the clock forward, running renewals, cancellations and trial ends in order. */
  advance(seconds: number): ClockStep[] {
    return schedule.advance(this, seconds)
  }

  // ---------------------------------------------------------------- catalogue

  listProducts(): Product[] {
    return catalogue.listProducts(this)
  }

  retrieveProduct(id: string): Product {
    return catalogue.retrieveProduct(this, id)
  }

  listPrices(): Price[] {
    return catalogue.listPrices(this)
  }

  retrievePrice(id: string): Price {
    return clone(catalogue.requirePrice(this, id, 'id'))
  }

  /** Active recurring prices, cheapest first: the plans a portal offers. */
  plans(): Price[] {
    return catalogue.plans(this)
  }

  productName(price: Price): string {
    return catalogue.productName(this, price)
  }

  /** "per month", "every 3 months" */
  describeInterval(price: Price): string {
    return catalogue.describeInterval(price)
  }

  /** "$15.00 per month" */
  describePrice(price: Price): string {
    return catalogue.describePrice(price)
  }

  formatAmount(amount: number, currency: string): string {
    return catalogue.formatAmount(amount, currency)
  }

  // ---------------------------------------------------------------- events

  listEvents(): StripeEvent[] {
    return events.listEvents(this)
  }

  retrieveEvent(id: string): StripeEvent {
    return events.retrieveEvent(this, id)
  }

  // ---------------------------------------------------------------- customers

  createCustomer(params: CustomerCreateParams, origin: Origin): Customer {
    return customers.createCustomer(this, params, origin)
  }

  retrieveCustomer(id: string): Customer | DeletedCustomer {
    return customers.retrieveCustomer(this, id)
  }

  updateCustomer(id: string, params: CustomerUpdateParams, origin: Origin): Customer {
    return customers.updateCustomer(this, id, params, origin)
  }

  deleteCustomer(id: string, origin: Origin): DeletedCustomer {
    return customers.deleteCustomer(this, id, origin)
  }

  listCustomers(): Customer[] {
    return customers.listCustomers(this)
  }

  /** Stripe's search language, for the clauses Tessera might use: `email:'a@b'`, `metadata['k']:'v'`. */
  searchCustomers(query: string): Customer[] {
    return customers.searchCustomers(this, query)
  }

  // ---------------------------------------------------------------- payment methods

  retrievePaymentMethod(id: string): PaymentMethod {
    return paymentMethods.retrievePaymentMethod(this, id)
  }

  /** Describes a stored card for people: "Visa ending in 4242". */
  describePaymentMethod(id: string | null): string | null {
    return paymentMethods.describePaymentMethod(this, id)
  }

  // ---------------------------------------------------------------- checkout

  createCheckoutSession(params: CheckoutCreateParams, publicUrl: string): CheckoutSession {
    return checkout.createCheckoutSession(this, params, publicUrl)
  }

  retrieveCheckoutSession(id: string): CheckoutSession {
    return checkout.retrieveCheckoutSession(this, id)
  }

  listCheckoutSessions(): CheckoutSession[] {
    return checkout.listCheckoutSessions(this)
  }

  checkoutLineItems(id: string): ApiList<CheckoutLineItem> {
    return checkout.checkoutLineItems(this, id)
  }

  /** What the hosted checkout page shows: the plan lines and the trial, if any. */
  checkoutSummary(id: string): ReturnType<typeof checkout.checkoutSummary> {
    return checkout.checkoutSummary(this, id)
  }

  expireCheckoutSession(id: string, origin: Origin): CheckoutSession {
    return checkout.expireCheckoutSession(this, id, origin)
  }

  /** The hosted page's "Pay and subscribe" (see `engine/checkout.ts`). */
  completeCheckout(
    id: string,
    input: CardInput & { email?: string },
    origin: Origin,
  ): CheckoutResult {
    return checkout.completeCheckout(this, id, input, origin)
  }

  // ---------------------------------------------------------------- subscriptions

  retrieveSubscription(id: string): Subscription {
    return clone(subscriptions.requireSubscription(this, id))
  }

  listSubscriptions(): Subscription[] {
    return subscriptions.listSubscriptions(this)
  }

  /** The customer's subscriptions that have not ended, newest first (what the portal shows). */
  liveSubscriptions(customerId: string): Subscription[] {
    return subscriptions.liveSubscriptions(this, customerId)
  }

  updateSubscription(id: string, params: SubscriptionUpdateParams, origin: Origin): Subscription {
    return subscriptions.updateSubscription(this, id, params, origin)
  }

  cancelSubscription(
    id: string,
    details: { comment?: string | null; feedback?: string | null } | undefined,
    origin: Origin,
  ): Subscription {
    return subscriptions.cancelSubscription(this, id, details, origin)
  }

  retrieveSubscriptionItem(id: string): SubscriptionItem {
    return subscriptionItems.retrieveSubscriptionItem(this, id)
  }

  /** A seat count (or price) change of one item, prorated like a subscription update. */
  updateSubscriptionItem(
    id: string,
    params: SubscriptionItemUpdateParams,
    origin: Origin,
  ): SubscriptionItem {
    return subscriptionItems.updateSubscriptionItem(this, id, params, origin)
  }

  // ---------------------------------------------------------------- invoices

  /** The next invoice of a subscription, after a change if one is given; nothing is stored. */
  previewInvoice(params: InvoicePreviewParams): Invoice {
    return preview.previewInvoice(this, params)
  }

  retrieveInvoice(id: string): Invoice {
    return invoices.retrieveInvoice(this, id)
  }

  listInvoices(): Invoice[] {
    return invoices.listInvoices(this)
  }

  /** `POST /v1/invoices/:id/pay`: a declined card is a 402 card error, as in Stripe. */
  payInvoice(id: string, paymentMethodId: string | undefined, origin: Origin): Invoice {
    return invoices.payInvoice(this, id, paymentMethodId, origin)
  }

  // ---------------------------------------------------------------- billing portal

  createPortalSession(params: PortalCreateParams, publicUrl: string): PortalSession {
    return portal.createPortalSession(this, params, publicUrl)
  }

  /** What the portal page shows for its customer. */
  portalView(portalId: string): ReturnType<typeof portal.portalView> {
    return portal.portalView(this, portalId)
  }

  portalCancel(portalId: string, subId: string): Subscription {
    return portal.portalCancel(this, portalId, subId)
  }

  portalResume(portalId: string, subId: string): Subscription {
    return portal.portalResume(this, portalId, subId)
  }

  portalChangePlan(portalId: string, subId: string, priceId: string): Subscription {
    return portal.portalChangePlan(this, portalId, subId, priceId)
  }

  /** The portal's "Update card": a new default card, then every unpaid invoice retried with it. */
  portalUpdateCard(
    portalId: string,
    input: CardInput,
  ): { ok: true } | { ok: false; rejection: RejectedCard } {
    return portal.portalUpdateCard(this, portalId, input)
  }

  // ---------------------------------------------------------------- expand support

  /** Any object by id, for `expand[]`. */
  byId(id: string): unknown {
    return lookup.findById(this, id)
  }

  includable(object: Record<string, unknown>, field: string): unknown {
    return lookup.includable(this, object, field)
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
    catalogue.applySeed(this)
  }
}
