// New Checkout Sessions and Billing Portal sessions with every field Stripe sends filled in; the
// engine passes only what varies.
import type { CheckoutSession, PortalSession } from './session-objects.ts'

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
