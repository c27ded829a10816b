// The parameters each implemented endpoint accepts. Strict: anything else is refused by name.
import { z } from 'zod'
import { listParams, p } from './params.ts'

export const productListSchema = z.strictObject({
  ...listParams,
  active: p.bool().optional(),
  ids: z.array(p.nonEmpty()).optional(),
})

export const priceListSchema = z.strictObject({
  ...listParams,
  active: p.bool().optional(),
  currency: p.nonEmpty().optional(),
  lookup_keys: z.array(p.nonEmpty()).max(10).optional(),
  product: p.nonEmpty().optional(),
  type: p.oneOf(['one_time', 'recurring']).optional(),
})

export const customerCreateSchema = z.strictObject({
  description: p.emptyable(p.string()).optional(),
  email: p.emptyable(p.string().max(512)).optional(),
  expand: p.expand(),
  metadata: p.metadata().optional(),
  name: p.emptyable(p.string().max(256)).optional(),
  phone: p.emptyable(p.string().max(20)).optional(),
})
export type CustomerCreateParams = z.output<typeof customerCreateSchema>

export const customerUpdateSchema = customerCreateSchema.extend({
  invoice_settings: z
    .strictObject({ default_payment_method: p.emptyable(p.nonEmpty()).optional() })
    .optional(),
})
export type CustomerUpdateParams = z.output<typeof customerUpdateSchema>

export const customerListSchema = z.strictObject({
  ...listParams,
  email: p.string().max(512).optional(),
})

export const customerSearchSchema = z.strictObject({
  query: p.nonEmpty(),
  limit: p.int(1, 100).optional(),
  page: p.nonEmpty().optional(),
  expand: p.expand(),
})

export const checkoutCreateSchema = z.strictObject({
  mode: p.oneOf(['payment', 'setup', 'subscription']),
  line_items: z
    .array(
      z.strictObject({
        price: p.nonEmpty(),
        quantity: p.int(1, 10_000).optional(),
      }),
    )
    .min(1)
    .optional(),
  customer: p.nonEmpty().optional(),
  customer_email: p.nonEmpty().optional(),
  success_url: p.nonEmpty().max(5000).optional(),
  cancel_url: p.nonEmpty().max(5000).optional(),
  client_reference_id: p.nonEmpty().max(200).optional(),
  metadata: p.metadata().optional(),
  subscription_data: z
    .strictObject({
      metadata: p.metadata().optional(),
      trial_period_days: p.int(1, 730).optional(),
      description: p.nonEmpty().max(500).optional(),
    })
    .optional(),
  allow_promotion_codes: p.bool().optional(),
  payment_method_types: z.array(p.oneOf(['card'])).optional(),
  expires_at: p.int(0).optional(),
  expand: p.expand(),
})
export type CheckoutCreateParams = z.output<typeof checkoutCreateSchema>

export const checkoutListSchema = z.strictObject({
  ...listParams,
  customer: p.nonEmpty().optional(),
  subscription: p.nonEmpty().optional(),
  status: p.oneOf(['open', 'complete', 'expired']).optional(),
})

export const subscriptionListSchema = z.strictObject({
  ...listParams,
  customer: p.nonEmpty().optional(),
  price: p.nonEmpty().optional(),
  status: p
    .oneOf([
      'active',
      'all',
      'canceled',
      'ended',
      'incomplete',
      'incomplete_expired',
      'past_due',
      'paused',
      'trialing',
      'unpaid',
    ])
    .optional(),
})

/** One entry of `items[]` (subscription update, invoice preview): an existing item or a new one. */
const itemChangeSchema = z.strictObject({
  id: p.nonEmpty().optional(),
  price: p.nonEmpty().optional(),
  quantity: p.int(1, 10_000).optional(),
  deleted: p.bool().optional(),
  metadata: p.metadata().optional(),
})

const prorationBehavior = p.oneOf(['always_invoice', 'create_prorations', 'none'])
const paymentBehavior = p.oneOf([
  'allow_incomplete',
  'default_incomplete',
  'error_if_incomplete',
  'pending_if_incomplete',
])

export const subscriptionUpdateSchema = z.strictObject({
  cancel_at_period_end: p.bool().optional(),
  cancel_at: p.emptyable(p.int(0)).optional(),
  cancellation_details: z
    .strictObject({
      comment: p.emptyable(p.string().max(5000)).optional(),
      feedback: p
        .emptyable(
          p.oneOf([
            'customer_service',
            'low_quality',
            'missing_features',
            'other',
            'switched_service',
            'too_complex',
            'too_expensive',
            'unused',
          ]),
        )
        .optional(),
    })
    .optional(),
  default_payment_method: p.nonEmpty().optional(),
  items: z.array(itemChangeSchema).max(20).optional(),
  metadata: p.metadata().optional(),
  payment_behavior: paymentBehavior.optional(),
  proration_behavior: prorationBehavior.optional(),
  proration_date: p.int(0).optional(),
  expand: p.expand(),
})
export type SubscriptionUpdateParams = z.output<typeof subscriptionUpdateSchema>

/** `POST /v1/subscription_items/:id`: a seat count (or price) change, prorated. */
export const subscriptionItemUpdateSchema = z.strictObject({
  quantity: p.int(1, 10_000).optional(),
  price: p.nonEmpty().optional(),
  metadata: p.metadata().optional(),
  off_session: p.bool().optional(),
  payment_behavior: paymentBehavior.optional(),
  proration_behavior: prorationBehavior.optional(),
  proration_date: p.int(0).optional(),
  expand: p.expand(),
})
export type SubscriptionItemUpdateParams = z.output<typeof subscriptionItemUpdateSchema>

/** `POST /v1/invoices/create_preview`, for an existing subscription (and a change to it). */
export const invoicePreviewSchema = z.strictObject({
  customer: p.nonEmpty().optional(),
  subscription: p.nonEmpty().optional(),
  subscription_details: z
    .strictObject({
      items: z.array(itemChangeSchema).max(20).optional(),
      proration_behavior: prorationBehavior.optional(),
      proration_date: p.int(0).optional(),
    })
    .optional(),
  expand: p.expand(),
})
export type InvoicePreviewParams = z.output<typeof invoicePreviewSchema>

export const subscriptionCancelSchema = z.strictObject({
  cancellation_details: z
    .strictObject({
      comment: p.emptyable(p.string().max(5000)).optional(),
      feedback: p.emptyable(p.nonEmpty()).optional(),
    })
    .optional(),
  invoice_now: p.bool().optional(),
  prorate: p.bool().optional(),
  expand: p.expand(),
})

export const invoiceListSchema = z.strictObject({
  ...listParams,
  customer: p.nonEmpty().optional(),
  subscription: p.nonEmpty().optional(),
  status: p.oneOf(['draft', 'open', 'paid', 'uncollectible', 'void']).optional(),
})

export const invoicePaySchema = z.strictObject({
  payment_method: p.nonEmpty().optional(),
  off_session: p.bool().optional(),
  expand: p.expand(),
})

export const portalCreateSchema = z.strictObject({
  customer: p.nonEmpty(),
  return_url: p.nonEmpty().max(5000).optional(),
  configuration: p.nonEmpty().optional(),
  locale: p.nonEmpty().optional(),
  expand: p.expand(),
})
export type PortalCreateParams = z.output<typeof portalCreateSchema>

export const eventListSchema = z.strictObject({
  ...listParams,
  type: p.nonEmpty().optional(),
  types: z.array(p.nonEmpty()).max(20).optional(),
})
