// The stand-in's whole state: plain JSON, so it can be saved to a file and read back.
import { z } from 'zod/mini'
import type { CardBehaviour } from './cards.ts'
import type { Invoice } from './invoice-objects.ts'
import type {
  Customer,
  PaymentMethod,
  Price,
  Product,
  StripeEvent,
  Subscription,
} from './objects.ts'
import type { CheckoutSession, PortalSession } from './session-objects.ts'
import type { Delivery } from './webhooks.ts'

export interface CheckoutExtras {
  lineItems: { price: string; quantity: number }[]
  subscriptionMetadata: Record<string, string>
  trialPeriodDays: number | null
}

/**
 * A proration waiting for the subscription's next invoice (Stripe's pending invoice item, made
 * by `proration_behavior=create_prorations`): negative for unused time, positive for new time.
 */
export interface PendingInvoiceItem {
  id: string
  subscription: string
  subscriptionItem: string
  price: string
  quantity: number
  amount: number
  description: string
  period: { start: number; end: number }
  created: number
}

export interface IdempotencyEntry {
  method: string
  path: string
  fingerprint: string
  created: number
  inFlight: boolean
  status: number
  body: string
  requestId: string
}

export interface StripeState {
  version: 1
  clockOffset: number
  products: Record<string, Product>
  prices: Record<string, Price>
  customers: Record<string, Customer>
  deletedCustomers: Record<string, true>
  paymentMethods: Record<string, PaymentMethod>
  cardBehaviours: Record<string, CardBehaviour>
  subscriptions: Record<string, Subscription>
  invoices: Record<string, Invoice>
  pendingInvoiceItems: Record<string, PendingInvoiceItem>
  checkoutSessions: Record<string, CheckoutSession>
  checkoutExtras: Record<string, CheckoutExtras>
  portalSessions: Record<string, PortalSession>
  events: Record<string, StripeEvent>
  deliveries: Record<string, Delivery>
  idempotency: Record<string, IdempotencyEntry>
  trialWillEndSent: Record<string, true>
  invoiceSequence: number
}

export function emptyState(): StripeState {
  return {
    version: 1,
    clockOffset: 0,
    products: {},
    prices: {},
    customers: {},
    deletedCustomers: {},
    paymentMethods: {},
    cardBehaviours: {},
    subscriptions: {},
    invoices: {},
    pendingInvoiceItems: {},
    checkoutSessions: {},
    checkoutExtras: {},
    portalSessions: {},
    events: {},
    deliveries: {},
    idempotency: {},
    trialWillEndSent: {},
    invoiceSequence: 0,
  }
}

const record = z.record(z.string(), z.looseObject({}))

// A saved file is checked for its outline only: it was written by this module, and a file from an
// incompatible version is refused as a whole rather than half-read.
const savedStateSchema = z.object({
  version: z.literal(1),
  clockOffset: z.number(),
  products: record,
  prices: record,
  customers: record,
  deletedCustomers: z.record(z.string(), z.literal(true)),
  paymentMethods: record,
  cardBehaviours: z.record(z.string(), z.enum(['succeed', 'fail_renewals'])),
  subscriptions: record,
  invoices: record,
  // Absent from files saved before prorations were modelled.
  pendingInvoiceItems: z.optional(record),
  checkoutSessions: record,
  checkoutExtras: record,
  portalSessions: record,
  events: record,
  deliveries: record,
  idempotency: record,
  trialWillEndSent: z.record(z.string(), z.literal(true)),
  invoiceSequence: z.int(),
})

/** Reads a saved state, or explains why it cannot be used. */
export function parseSavedState(
  json: unknown,
): { ok: true; state: StripeState } | { ok: false; reason: string } {
  const result = savedStateSchema.safeParse(json)
  if (!result.success) {
    return {
      ok: false,
      reason: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    }
  }
  // The outline matched; the objects inside were written by this stand-in.
  const state = json as StripeState
  state.pendingInvoiceItems ??= {}
  for (const [key, entry] of Object.entries(state.idempotency)) {
    if (entry.inFlight) delete state.idempotency[key]
  }
  return { ok: true, state }
}
