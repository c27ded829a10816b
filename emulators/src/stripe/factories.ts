// New Stripe objects with every field Stripe sends filled in; the engine passes only what varies.
import type { AcceptedCard } from './cards.ts'
import { newId } from './ids.ts'
import {
  planOf,
  type CheckoutSession,
  type Customer,
  type Interval,
  type Invoice,
  type InvoiceLineItem,
  type PaymentMethod,
  type PortalSession,
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

export function newCheckoutSession(
  fields: Pick<
    CheckoutSession,
    | 'id'
    | 'created'
    | 'allow_promotion_codes'
    | 'amount_subtotal'
    | 'amount_total'
    | 'cancel_url'
    | 'client_reference_id'
    | 'currency'
    | 'customer'
    | 'customer_creation'
    | 'customer_details'
    | 'customer_email'
    | 'expires_at'
    | 'metadata'
    | 'payment_method_types'
    | 'success_url'
    | 'url'
  >,
): CheckoutSession {
  return {
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer_account: null,
    discounts: [],
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    mode: 'subscription',
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_status: 'unpaid',
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    wallet_options: null,
    ...fields,
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

export function newInvoiceLine(
  fields: Pick<InvoiceLineItem, 'amount' | 'description' | 'invoice' | 'period'> & {
    item: SubscriptionItem
    proration: boolean
  },
): InvoiceLineItem {
  const { item, proration, ...rest } = fields
  return {
    id: newId('il', 24),
    object: 'line_item',
    currency: item.price.currency,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    livemode: false,
    metadata: {},
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration,
        proration_details: { credited_items: null },
        subscription: item.subscription,
        subscription_item: item.id,
      },
      type: 'subscription_item_details',
    },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: item.price.id, product: item.price.product },
      type: 'price_details',
      unit_amount_decimal: item.price.unit_amount_decimal,
    },
    quantity: item.quantity,
    taxes: [],
    ...rest,
  }
}

export function newInvoice(
  fields: Pick<
    Invoice,
    | 'id'
    | 'created'
    | 'account_name'
    | 'billing_reason'
    | 'currency'
    | 'customer'
    | 'customer_email'
    | 'customer_name'
    | 'number'
    | 'period_end'
    | 'period_start'
  > & { lines: InvoiceLineItem[]; subscription: Subscription },
): Invoice {
  const { lines, subscription, ...rest } = fields
  const total = lines.reduce((sum, line) => sum + line.amount, 0)
  return {
    object: 'invoice',
    account_country: 'US',
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: {
      disabled_reason: null,
      enabled: false,
      liability: null,
      provider: null,
      status: null,
    },
    automatically_finalizes_at: null,
    collection_method: 'charge_automatically',
    custom_fields: null,
    customer_account: null,
    customer_address: null,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: fields.created,
    ending_balance: 0,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: `https://invoice.stripe.com/i/stand-in/${fields.id}`,
    invoice_pdf: `https://pay.stripe.com/invoice/stand-in/${fields.id}/pdf`,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: {
      object: 'list',
      data: lines,
      has_more: false,
      total_count: lines.length,
      url: `/v1/invoices/${fields.id}/lines`,
    },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: {
        metadata: { ...subscription.metadata },
        subscription: subscription.id,
      },
      type: 'subscription_details',
    },
    payment_settings: {
      default_mandate: null,
      payment_method_options: null,
      payment_method_types: null,
    },
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    // Subscription invoices are finalized at once and charged automatically.
    status: 'open',
    status_transitions: {
      finalized_at: fields.created,
      marked_uncollectible_at: null,
      paid_at: null,
      voided_at: null,
    },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
    ...rest,
  }
}

export function newPortalSession(
  fields: Pick<PortalSession, 'id' | 'created' | 'customer' | 'return_url' | 'url'>,
): PortalSession {
  return {
    object: 'billing_portal.session',
    configuration: 'bpc_tessera_default',
    customer_account: null,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    ...fields,
  }
}
