// Stripe object shapes for API version 2026-10-28 (the one `stripe` 23.1 pins), limited to the
// fields Tessera reads plus the ones that are cheap to keep faithful. Everything here is plain JSON
// so the whole state can be persisted and deep-copied with structuredClone. Invoices are in
// `invoice-objects.ts`; Checkout and Billing Portal sessions in `session-objects.ts`.

export type Metadata = Record<string, string>

export type Interval = 'day' | 'week' | 'month' | 'year'

export interface Product {
  id: string
  object: 'product'
  active: boolean
  created: number
  default_price: string | null
  description: string | null
  images: string[]
  livemode: false
  marketing_features: never[]
  metadata: Metadata
  name: string
  package_dimensions: null
  shippable: null
  statement_descriptor: null
  tax_code: null
  type: 'service'
  unit_label: null
  updated: number
  url: null
}

export interface Price {
  id: string
  object: 'price'
  active: boolean
  billing_scheme: 'per_unit'
  created: number
  currency: string
  custom_unit_amount: null
  livemode: false
  lookup_key: string | null
  metadata: Metadata
  nickname: string | null
  product: string
  recurring: {
    interval: Interval
    interval_count: number
    meter: null
    trial_period_days: null
    usage_type: 'licensed'
  }
  tax_behavior: 'unspecified'
  tiers_mode: null
  transform_quantity: null
  type: 'recurring'
  unit_amount: number
  unit_amount_decimal: string
}

export interface Customer {
  id: string
  object: 'customer'
  address: null
  balance: number
  created: number
  currency: string | null
  default_source: null
  delinquent: boolean
  description: string | null
  discount: null
  email: string | null
  invoice_prefix: string
  invoice_settings: {
    custom_fields: null
    default_payment_method: string | null
    footer: null
    rendering_options: null
  }
  livemode: false
  metadata: Metadata
  name: string | null
  next_invoice_sequence: number
  phone: string | null
  preferred_locales: string[]
  shipping: null
  tax_exempt: 'none'
  test_clock: null
}

export interface DeletedCustomer {
  id: string
  object: 'customer'
  deleted: true
}

export interface PaymentMethod {
  id: string
  object: 'payment_method'
  allow_redisplay: 'unspecified'
  billing_details: {
    address: null
    email: string | null
    name: string | null
    phone: null
    tax_id: null
  }
  card: {
    brand: string
    checks: { address_line1_check: null; address_postal_code_check: null; cvc_check: 'pass' }
    country: 'US'
    display_brand: string
    exp_month: number
    exp_year: number
    fingerprint: string
    funding: 'credit'
    generated_from: null
    last4: string
    networks: { available: string[]; preferred: null }
    regulated_status: 'unregulated'
    three_d_secure_usage: { supported: boolean }
    wallet: null
  }
  created: number
  customer: string | null
  livemode: false
  metadata: Metadata
  type: 'card'
}

export interface Plan {
  id: string
  object: 'plan'
  active: boolean
  amount: number
  amount_decimal: string
  billing_scheme: 'per_unit'
  created: number
  currency: string
  interval: Interval
  interval_count: number
  livemode: false
  metadata: Metadata
  meter: null
  nickname: string | null
  product: string
  tiers_mode: null
  transform_usage: null
  trial_period_days: null
  usage_type: 'licensed'
}

export interface SubscriptionItem {
  id: string
  object: 'subscription_item'
  billing_thresholds: null
  created: number
  current_period_end: number
  current_period_start: number
  discounts: string[]
  metadata: Metadata
  plan: Plan
  price: Price
  quantity: number
  subscription: string
  tax_rates: never[]
}

export interface ApiList<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  total_count?: number
  url: string
}

export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused'

export interface Subscription {
  id: string
  object: 'subscription'
  application: null
  application_fee_percent: null
  automatic_tax: { disabled_reason: null; enabled: false; liability: null }
  billing_cycle_anchor: number
  billing_cycle_anchor_config: null
  billing_mode: { flexible: null; type: 'classic' }
  billing_thresholds: null
  cancel_at: number | null
  cancel_at_period_end: boolean
  canceled_at: number | null
  cancellation_details: {
    comment: string | null
    feedback: string | null
    reason: 'cancellation_requested' | 'payment_failed' | 'payment_disputed' | null
  }
  collection_method: 'charge_automatically'
  created: number
  currency: string
  customer: string
  customer_account: null
  days_until_due: null
  default_payment_method: string | null
  default_source: null
  default_tax_rates: never[]
  description: string | null
  discounts: string[]
  ended_at: number | null
  invoice_settings: { account_tax_ids: null; issuer: { type: 'self' } }
  items: ApiList<SubscriptionItem>
  latest_invoice: string | null
  livemode: false
  metadata: Metadata
  next_pending_invoice_item_invoice: null
  on_behalf_of: null
  pause_collection: null
  payment_settings: {
    payment_method_options: null
    payment_method_types: null
    save_default_payment_method: 'off'
  }
  pending_invoice_item_interval: null
  pending_setup_intent: null
  pending_update: null
  schedule: null
  start_date: number
  status: SubscriptionStatus
  test_clock: null
  transfer_data: null
  trial_end: number | null
  trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } }
  trial_start: number | null
}

export interface StripeEvent {
  id: string
  object: 'event'
  api_version: string
  created: number
  data: { object: unknown; previous_attributes?: Record<string, unknown> }
  livemode: false
  pending_webhooks: number
  request: { id: string | null; idempotency_key: string | null }
  type: string
}

export function planOf(price: Price): Plan {
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring.interval,
    interval_count: price.recurring.interval_count,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  }
}
