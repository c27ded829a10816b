// Stripe object shapes for API version 2026-10-28 (the one `stripe` 23.1 pins), limited to the
// fields Tessera reads plus the ones that are cheap to keep faithful. Everything here is plain JSON
// so the whole state can be persisted and deep-copied with structuredClone.

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

export type BillingReason =
  'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual'

export interface InvoiceLineItem {
  id: string
  object: 'line_item'
  amount: number
  currency: string
  description: string
  discount_amounts: never[]
  discountable: boolean
  discounts: never[]
  invoice: string
  livemode: false
  metadata: Metadata
  parent: {
    invoice_item_details: null
    subscription_item_details: {
      invoice_item: null
      proration: boolean
      proration_details: { credited_items: null }
      subscription: string
      subscription_item: string
    }
    type: 'subscription_item_details'
  }
  period: { end: number; start: number }
  pretax_credit_amounts: never[]
  pricing: {
    price_details: { price: string; product: string }
    type: 'price_details'
    unit_amount_decimal: string
  }
  quantity: number
  taxes: never[]
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'uncollectible' | 'void'

export interface Invoice {
  id: string
  object: 'invoice'
  account_country: 'US'
  account_name: string
  account_tax_ids: null
  amount_due: number
  amount_overpaid: number
  amount_paid: number
  amount_remaining: number
  amount_shipping: number
  application: null
  attempt_count: number
  attempted: boolean
  auto_advance: boolean
  automatic_tax: {
    disabled_reason: null
    enabled: false
    liability: null
    provider: null
    status: null
  }
  automatically_finalizes_at: null
  billing_reason: BillingReason
  collection_method: 'charge_automatically'
  created: number
  currency: string
  custom_fields: null
  customer: string
  customer_account: null
  customer_address: null
  customer_email: string | null
  customer_name: string | null
  customer_phone: null
  customer_shipping: null
  customer_tax_exempt: 'none'
  customer_tax_ids: never[]
  default_payment_method: null
  default_source: null
  default_tax_rates: never[]
  description: null
  discounts: never[]
  due_date: null
  effective_at: number
  ending_balance: number
  footer: null
  from_invoice: null
  hosted_invoice_url: string
  invoice_pdf: string
  issuer: { type: 'self' }
  last_finalization_error: null
  latest_revision: null
  lines: ApiList<InvoiceLineItem>
  livemode: false
  metadata: Metadata
  next_payment_attempt: number | null
  number: string
  on_behalf_of: null
  parent: {
    quote_details: null
    subscription_details: { metadata: Metadata; subscription: string }
    type: 'subscription_details'
  }
  payment_settings: {
    default_mandate: null
    payment_method_options: null
    payment_method_types: null
  }
  period_end: number
  period_start: number
  post_payment_credit_notes_amount: number
  pre_payment_credit_notes_amount: number
  receipt_number: null
  rendering: null
  shipping_cost: null
  shipping_details: null
  starting_balance: number
  statement_descriptor: null
  status: InvoiceStatus
  status_transitions: {
    finalized_at: number | null
    marked_uncollectible_at: null
    paid_at: number | null
    voided_at: number | null
  }
  subtotal: number
  subtotal_excluding_tax: number
  test_clock: null
  total: number
  total_discount_amounts: never[]
  total_excluding_tax: number
  total_pretax_credit_amounts: never[]
  total_taxes: never[]
  webhooks_delivered_at: number | null
}

export interface CheckoutLineItem {
  id: string
  object: 'item'
  amount_discount: number
  amount_subtotal: number
  amount_tax: number
  amount_total: number
  currency: string
  description: string
  price: Price
  quantity: number
}

export interface CheckoutSession {
  id: string
  object: 'checkout.session'
  adaptive_pricing: null
  after_expiration: null
  allow_promotion_codes: boolean | null
  amount_subtotal: number
  amount_total: number
  automatic_tax: { enabled: false; liability: null; provider: null; status: null }
  billing_address_collection: null
  cancel_url: string | null
  client_reference_id: string | null
  client_secret: null
  collected_information: null
  consent: null
  consent_collection: null
  created: number
  currency: string
  currency_conversion: null
  custom_fields: never[]
  custom_text: {
    after_submit: null
    shipping_address: null
    submit: null
    terms_of_service_acceptance: null
  }
  customer: string | null
  customer_account: null
  customer_creation: 'always' | null
  customer_details: {
    address: null
    business_name: null
    email: string | null
    individual_name: null
    name: string | null
    phone: null
    tax_exempt: 'none'
    tax_ids: never[]
  } | null
  customer_email: string | null
  discounts: never[]
  expires_at: number
  integration_identifier: null
  invoice: string | null
  invoice_creation: null
  livemode: false
  locale: null
  managed_payments: null
  metadata: Metadata
  mode: 'subscription'
  origin_context: null
  payment_intent: null
  payment_link: null
  payment_method_collection: 'always'
  payment_method_configuration_details: null
  payment_method_options: { card: { request_three_d_secure: 'automatic' } }
  payment_method_types: string[]
  payment_status: 'paid' | 'unpaid' | 'no_payment_required'
  permissions: null
  recovered_from: null
  saved_payment_method_options: null
  setup_intent: null
  shipping_address_collection: null
  shipping_cost: null
  shipping_options: never[]
  status: 'open' | 'complete' | 'expired'
  submit_type: null
  subscription: string | null
  success_url: string | null
  total_details: { amount_discount: number; amount_shipping: number; amount_tax: number }
  ui_mode: 'hosted'
  url: string | null
  wallet_options: null
}

export interface PortalSession {
  id: string
  object: 'billing_portal.session'
  configuration: string
  created: number
  customer: string
  customer_account: null
  flow: null
  livemode: false
  locale: null
  on_behalf_of: null
  return_url: string | null
  url: string
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
