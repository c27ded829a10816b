// Invoice shapes for API version 2026-10-28, as `objects.ts` describes the rest: the fields Tessera
// reads plus the ones that are cheap to keep faithful, as plain JSON.
import type { ApiList, Metadata } from './objects.ts'

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
  /** Null on a preview, which has no number until it is finalized. */
  number: string | null
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
