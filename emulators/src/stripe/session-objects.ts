// Checkout Session and Billing Portal session shapes for API version 2026-10-28, as `objects.ts`
// describes the rest: plain JSON, with every field Stripe sends.
import type { Metadata, Price } from './objects.ts'

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
