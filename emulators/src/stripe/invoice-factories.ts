// New invoices and invoice lines with every field Stripe sends filled in; the engine passes only
// what varies.
import { newId } from './ids.ts'
import type { Invoice, InvoiceLineItem } from './invoice-objects.ts'
import type { Subscription, SubscriptionItem } from './objects.ts'

export function newInvoiceLine(
  fields: Pick<InvoiceLineItem, 'amount' | 'description' | 'invoice' | 'period'> & {
    item: Pick<SubscriptionItem, 'id' | 'subscription' | 'price' | 'quantity'>
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
  > & { lines: InvoiceLineItem[]; subscription: Subscription; status?: Invoice['status'] },
): Invoice {
  const { lines, subscription, status = 'open', ...rest } = fields
  const total = lines.reduce((sum, line) => sum + line.amount, 0)
  // A credit larger than the charges leaves nothing to pay (Stripe moves the rest to the
  // customer's balance; the stand-in carries it as a pending proration instead).
  const due = Math.max(0, total)
  return {
    object: 'invoice',
    account_country: 'US',
    account_tax_ids: null,
    amount_due: due,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: due,
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
    // Subscription invoices are finalized at once and charged automatically; a preview is a draft.
    status,
    status_transitions: {
      finalized_at: status === 'draft' ? null : fields.created,
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
