// New Stripe objects with every field Stripe sends filled in; the engine passes only what varies.
// Invoices are made in `invoice-factories.ts`; Checkout and portal sessions in `session-factories.ts`.
import type { AcceptedCard } from './cards.ts'
import { newId } from './ids.ts'
import {
  planOf,
  type Customer,
  type Interval,
  type PaymentMethod,
  type Price,
  type Product,
  type Subscription,
  type SubscriptionItem,
} from './objects.ts'

export function newProduct(name: string, now: number): Product {
  return {
    id: newId('prod', 14),
    object: 'product',
    active: true,
    created: now,
    default_price: null,
    description: null,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: {},
    name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    type: 'service',
    unit_label: null,
    updated: now,
    url: null,
  }
}

export function newPrice(
  fields: Pick<Price, 'created' | 'currency' | 'lookup_key' | 'product' | 'unit_amount'> & {
    interval: Interval
  },
): Price {
  return {
    id: newId('price', 24),
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created: fields.created,
    currency: fields.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: fields.lookup_key,
    metadata: {},
    nickname: null,
    product: fields.product,
    recurring: {
      interval: fields.interval,
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: fields.unit_amount,
    unit_amount_decimal: String(fields.unit_amount),
  }
}

export function newCustomer(
  fields: Pick<Customer, 'created' | 'description' | 'email' | 'metadata' | 'name' | 'phone'>,
): Customer {
  return {
    id: newId('cus', 14),
    object: 'customer',
    address: null,
    balance: 0,
    currency: null,
    default_source: null,
    delinquent: false,
    discount: null,
    invoice_prefix: newId('x', 8).slice(2).toUpperCase(),
    invoice_settings: {
      custom_fields: null,
      default_payment_method: null,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    next_invoice_sequence: 1,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
    ...fields,
  }
}

export function newPaymentMethod(
  card: AcceptedCard,
  customer: string,
  email: string | null,
  now: number,
): PaymentMethod {
  return {
    id: newId('pm', 24),
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: { address: null, email, name: card.name, phone: null, tax_id: null },
    card: {
      brand: card.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
      country: 'US',
      display_brand: card.brand,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: card.fingerprint,
      funding: 'credit',
      generated_from: null,
      last4: card.last4,
      networks: { available: [card.brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: now,
    customer,
    livemode: false,
    metadata: {},
    type: 'card',
  }
}

export function newSubscriptionItem(
  subscription: string,
  price: Price,
  quantity: number,
  period: { start: number; end: number },
  now: number,
): SubscriptionItem {
  const copy = structuredClone(price)
  return {
    id: newId('si', 14),
    object: 'subscription_item',
    billing_thresholds: null,
    created: now,
    current_period_end: period.end,
    current_period_start: period.start,
    discounts: [],
    metadata: {},
    plan: planOf(copy),
    price: copy,
    quantity,
    subscription,
    tax_rates: [],
  }
}

export function newSubscription(
  fields: Pick<
    Subscription,
    | 'id'
    | 'created'
    | 'billing_cycle_anchor'
    | 'currency'
    | 'customer'
    | 'default_payment_method'
    | 'metadata'
    | 'start_date'
    | 'status'
    | 'trial_end'
    | 'trial_start'
  > & { items: SubscriptionItem[] },
): Subscription {
  const { items, ...rest } = fields
  return {
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: 'charge_automatically',
    customer_account: null,
    days_until_due: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: {
      object: 'list',
      data: items,
      has_more: false,
      total_count: items.length,
      url: `/v1/subscription_items?subscription=${fields.id}`,
    },
    latest_invoice: null,
    livemode: false,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: {
      payment_method_options: null,
      payment_method_types: null,
      save_default_payment_method: 'off',
    },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    test_clock: null,
    transfer_data: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    ...rest,
  }
}
