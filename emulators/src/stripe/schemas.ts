// The parameters each implemented endpoint accepts. Strict: anything else is refused by name.
import { z } from 'zod/mini'
import { listParams, p } from './params.ts'

export const productListSchema = z.strictObject({
  ...listParams,
  active: z.optional(p.bool()),
  ids: z.optional(z.array(p.nonEmpty())),
})

export const priceListSchema = z.strictObject({
  ...listParams,
  active: z.optional(p.bool()),
  currency: z.optional(p.nonEmpty()),
  lookup_keys: z.optional(z.array(p.nonEmpty()).check(z.maxLength(10))),
  product: z.optional(p.nonEmpty()),
  type: z.optional(p.oneOf(['one_time', 'recurring'])),
})

export const customerCreateSchema = z.strictObject({
  description: z.optional(p.emptyable(p.string())),
  email: z.optional(p.emptyable(p.string().check(z.maxLength(512)))),
  expand: p.expand(),
  metadata: z.optional(p.metadata()),
  name: z.optional(p.emptyable(p.string().check(z.maxLength(256)))),
  phone: z.optional(p.emptyable(p.string().check(z.maxLength(20)))),
})
export type CustomerCreateParams = z.output<typeof customerCreateSchema>

export const customerUpdateSchema = z.extend(customerCreateSchema, {
  invoice_settings: z.optional(
    z.strictObject({ default_payment_method: z.optional(p.emptyable(p.nonEmpty())) }),
  ),
})
export type CustomerUpdateParams = z.output<typeof customerUpdateSchema>

export const customerListSchema = z.strictObject({
  ...listParams,
  email: z.optional(p.string().check(z.maxLength(512))),
})

export const customerSearchSchema = z.strictObject({
  query: p.nonEmpty(),
  limit: z.optional(p.int(1, 100)),
  page: z.optional(p.nonEmpty()),
  expand: p.expand(),
})

export const checkoutCreateSchema = z.strictObject({
  mode: p.oneOf(['payment', 'setup', 'subscription']),
  line_items: z.optional(
    z
      .array(
        z.strictObject({
          price: p.nonEmpty(),
          quantity: z.optional(p.int(1, 10_000)),
        }),
      )
      .check(z.minLength(1)),
  ),
  customer: z.optional(p.nonEmpty()),
  customer_email: z.optional(p.nonEmpty()),
  success_url: z.optional(p.nonEmpty().check(z.maxLength(5000))),
  cancel_url: z.optional(p.nonEmpty().check(z.maxLength(5000))),
  client_reference_id: z.optional(p.nonEmpty().check(z.maxLength(200))),
  metadata: z.optional(p.metadata()),
  subscription_data: z.optional(
    z.strictObject({
      metadata: z.optional(p.metadata()),
      trial_period_days: z.optional(p.int(1, 730)),
      description: z.optional(p.nonEmpty().check(z.maxLength(500))),
    }),
  ),
  allow_promotion_codes: z.optional(p.bool()),
  payment_method_types: z.optional(z.array(p.oneOf(['card']))),
  expires_at: z.optional(p.int(0)),
  expand: p.expand(),
})
export type CheckoutCreateParams = z.output<typeof checkoutCreateSchema>

export const checkoutListSchema = z.strictObject({
  ...listParams,
  customer: z.optional(p.nonEmpty()),
  subscription: z.optional(p.nonEmpty()),
  status: z.optional(p.oneOf(['open', 'complete', 'expired'])),
})

export const subscriptionListSchema = z.strictObject({
  ...listParams,
  customer: z.optional(p.nonEmpty()),
  price: z.optional(p.nonEmpty()),
  status: z.optional(
    p.oneOf([
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
    ]),
  ),
})

/** One entry of `items[]` (subscription update, invoice preview): an existing item or a new one. */
const itemChangeSchema = z.strictObject({
  id: z.optional(p.nonEmpty()),
  price: z.optional(p.nonEmpty()),
  quantity: z.optional(p.int(1, 10_000)),
  deleted: z.optional(p.bool()),
  metadata: z.optional(p.metadata()),
})

const prorationBehavior = p.oneOf(['always_invoice', 'create_prorations', 'none'])
const paymentBehavior = p.oneOf([
  'allow_incomplete',
  'default_incomplete',
  'error_if_incomplete',
  'pending_if_incomplete',
])

export const subscriptionUpdateSchema = z.strictObject({
  cancel_at_period_end: z.optional(p.bool()),
  cancel_at: z.optional(p.emptyable(p.int(0))),
  cancellation_details: z.optional(
    z.strictObject({
      comment: z.optional(p.emptyable(p.string().check(z.maxLength(5000)))),
      feedback: z.optional(
        p.emptyable(
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
        ),
      ),
    }),
  ),
  default_payment_method: z.optional(p.nonEmpty()),
  items: z.optional(z.array(itemChangeSchema).check(z.maxLength(20))),
  metadata: z.optional(p.metadata()),
  payment_behavior: z.optional(paymentBehavior),
  proration_behavior: z.optional(prorationBehavior),
  proration_date: z.optional(p.int(0)),
  expand: p.expand(),
})
export type SubscriptionUpdateParams = z.output<typeof subscriptionUpdateSchema>

/** `POST /v1/subscription_items/:id`: a seat count (or price) change, prorated. */
export const subscriptionItemUpdateSchema = z.strictObject({
  quantity: z.optional(p.int(1, 10_000)),
  price: z.optional(p.nonEmpty()),
  metadata: z.optional(p.metadata()),
  off_session: z.optional(p.bool()),
  payment_behavior: z.optional(paymentBehavior),
  proration_behavior: z.optional(prorationBehavior),
  proration_date: z.optional(p.int(0)),
  expand: p.expand(),
})
export type SubscriptionItemUpdateParams = z.output<typeof subscriptionItemUpdateSchema>

/** `POST /v1/invoices/create_preview`, for an existing subscription (and a change to it). */
export const invoicePreviewSchema = z.strictObject({
  customer: z.optional(p.nonEmpty()),
  subscription: z.optional(p.nonEmpty()),
  subscription_details: z.optional(
    z.strictObject({
      items: z.optional(z.array(itemChangeSchema).check(z.maxLength(20))),
      proration_behavior: z.optional(prorationBehavior),
      proration_date: z.optional(p.int(0)),
    }),
  ),
  expand: p.expand(),
})
export type InvoicePreviewParams = z.output<typeof invoicePreviewSchema>

export const subscriptionCancelSchema = z.strictObject({
  cancellation_details: z.optional(
    z.strictObject({
      comment: z.optional(p.emptyable(p.string().check(z.maxLength(5000)))),
      feedback: z.optional(p.emptyable(p.nonEmpty())),
    }),
  ),
  invoice_now: z.optional(p.bool()),
  prorate: z.optional(p.bool()),
  expand: p.expand(),
})

export const invoiceListSchema = z.strictObject({
  ...listParams,
  customer: z.optional(p.nonEmpty()),
  subscription: z.optional(p.nonEmpty()),
  status: z.optional(p.oneOf(['draft', 'open', 'paid', 'uncollectible', 'void'])),
})

export const invoicePaySchema = z.strictObject({
  payment_method: z.optional(p.nonEmpty()),
  off_session: z.optional(p.bool()),
  expand: p.expand(),
})

export const portalCreateSchema = z.strictObject({
  customer: p.nonEmpty(),
  return_url: z.optional(p.nonEmpty().check(z.maxLength(5000))),
  configuration: z.optional(p.nonEmpty()),
  locale: z.optional(p.nonEmpty()),
  expand: p.expand(),
})
export type PortalCreateParams = z.output<typeof portalCreateSchema>

export const eventListSchema = z.strictObject({
  ...listParams,
  type: z.optional(p.nonEmpty()),
  types: z.optional(z.array(p.nonEmpty()).check(z.maxLength(20))),
})
