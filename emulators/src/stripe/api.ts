// Stripe's REST API (`/v1/…`), the subset Tessera uses, speaking the wire protocol the `stripe`
// SDK speaks: Bearer test keys, form-encoded params (also on GET), `expand[]`, list pagination,
// idempotency keys, and Stripe's error shape.
import { Hono, type Context } from 'hono'
import type { ApiEnv } from './api-env.ts'
import type { StripeEngine, Origin } from './engine.ts'
import { authenticationError, invalidRequest } from './errors.ts'
import { expand } from './expand.ts'
import { parseForm } from './form.ts'
import { idempotency } from './idempotency.ts'
import { paginate } from './paginate.ts'
import { parseParams, retrieveParams } from './params.ts'
import {
  checkoutCreateSchema,
  checkoutListSchema,
  customerCreateSchema,
  customerListSchema,
  customerSearchSchema,
  customerUpdateSchema,
  eventListSchema,
  invoiceListSchema,
  invoicePaySchema,
  invoicePreviewSchema,
  portalCreateSchema,
  priceListSchema,
  productListSchema,
  subscriptionCancelSchema,
  subscriptionItemUpdateSchema,
  subscriptionListSchema,
  subscriptionUpdateSchema,
} from './schemas.ts'
import type { StripeState } from './state.ts'
import { z } from 'zod/mini'

export interface ApiOptions {
  engine: StripeEngine
  state: () => StripeState
  /** When set, only this key is accepted; otherwise any `sk_test_…`/`rk_test_…` key is. */
  apiKey?: string
  publicUrl: (c: Context) => string
}

/** The endpoints, for the 404 that names what is implemented. */
export const SUPPORTED_ENDPOINTS = [
  'GET /v1/products[/:id]',
  'GET /v1/prices[/:id]',
  'POST|GET /v1/customers',
  'GET /v1/customers/search',
  'GET|POST|DELETE /v1/customers/:id',
  'GET /v1/payment_methods/:id',
  'POST|GET /v1/checkout/sessions',
  'GET /v1/checkout/sessions/:id[/line_items]',
  'POST /v1/checkout/sessions/:id/expire',
  'GET /v1/subscriptions[/:id]',
  'POST|DELETE /v1/subscriptions/:id',
  'GET|POST /v1/subscription_items/:id',
  'GET /v1/invoices[/:id]',
  'POST /v1/invoices/create_preview',
  'POST /v1/invoices/:id/pay',
  'POST /v1/billing_portal/sessions',
  'GET /v1/events[/:id]',
].join(', ')

function maskKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(8)}${key.slice(-4)}` : '****'
}

function readApiKey(header: string | undefined): string | null {
  if (!header) return null
  const bearer = /^Bearer\s+(\S+)$/i.exec(header)
  if (bearer) return bearer[1] ?? null
  const basic = /^Basic\s+(\S+)$/i.exec(header)
  if (basic) {
    // Stripe also accepts the key as the basic-auth user name (what curl -u sends).
    const decoded = atob(basic[1] ?? '')
    return decoded.split(':')[0] ?? null
  }
  return null
}

const emptyParams = z.strictObject({})

export function createApi(options: ApiOptions): Hono<ApiEnv> {
  const { engine } = options
  const api = new Hono<ApiEnv>()

  api.use('*', async function authenticate(c, next) {
    const key = readApiKey(c.req.header('Authorization'))
    if (!key) {
      throw authenticationError(
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      )
    }
    const wellFormed = /^(sk|rk)_test_\S+$/.test(key)
    if (!wellFormed || (options.apiKey !== undefined && key !== options.apiKey)) {
      throw authenticationError(
        key.startsWith('sk_live_') || key.startsWith('rk_live_')
          ? `Invalid API Key provided: ${maskKey(key)}. The Stripe stand-in accepts test-mode keys only.`
          : `Invalid API Key provided: ${maskKey(key)}`,
      )
    }
    c.set('apiKey', key)
    await next()
  })

  api.use('*', async function parseRequestParams(c, next) {
    const url = new URL(c.req.url)
    const query = url.search.startsWith('?') ? url.search.slice(1) : url.search
    let body = ''
    if (c.req.method === 'POST' || c.req.method === 'DELETE') {
      const type = c.req.header('Content-Type') ?? ''
      body = await c.req.text()
      if (body.length > 0 && !type.startsWith('application/x-www-form-urlencoded')) {
        throw invalidRequest(
          `Stripe's v1 API takes application/x-www-form-urlencoded bodies; this request sent ${type || 'no Content-Type'}.`,
        )
      }
    }
    const raw = [query, body].filter((part) => part.length > 0).join('&')
    c.set('rawParams', raw)
    c.set('params', parseForm(raw))
    // Real time may have reached a renewal or an expiry since the last request.
    engine.tick()
    await next()
  })

  api.use('*', idempotency({ state: options.state, now: () => engine.now() }))

  const origin = (c: Context<ApiEnv>): Origin => ({
    requestId: c.get('requestId'),
    idempotencyKey: c.req.header('Idempotency-Key') ?? null,
  })

  const send = (c: Context<ApiEnv>, value: unknown, paths: readonly string[] | undefined) =>
    c.json(expand(value, paths, engine) as object)

  // ------------------------------------------------------------ products and prices

  api.get('/products', (c) => {
    const q = parseParams(productListSchema, c.get('params'))
    const items = engine
      .listProducts()
      .filter((p) => q.active === undefined || p.active === q.active)
      .filter((p) => q.ids === undefined || q.ids.includes(p.id))
    return send(c, paginate(items, q, '/v1/products'), q.expand)
  })

  api.get('/products/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveProduct(c.req.param('id')), q.expand)
  })

  api.get('/prices', (c) => {
    const q = parseParams(priceListSchema, c.get('params'))
    const items = engine
      .listPrices()
      .filter((p) => q.active === undefined || p.active === q.active)
      .filter(
        (p) =>
          q.lookup_keys === undefined ||
          (p.lookup_key !== null && q.lookup_keys.includes(p.lookup_key)),
      )
      .filter((p) => q.product === undefined || p.product === q.product)
      .filter((p) => q.currency === undefined || p.currency === q.currency)
      .filter((p) => q.type === undefined || p.type === q.type)
    return send(c, paginate(items, q, '/v1/prices'), q.expand)
  })

  api.get('/prices/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrievePrice(c.req.param('id')), q.expand)
  })

  // ------------------------------------------------------------ customers

  api.post('/customers', (c) => {
    const q = parseParams(customerCreateSchema, c.get('params'))
    return send(c, engine.createCustomer(q, origin(c)), q.expand)
  })

  api.get('/customers', (c) => {
    const q = parseParams(customerListSchema, c.get('params'))
    const items = engine
      .listCustomers()
      .filter((cus) => q.email === undefined || cus.email === q.email)
    return send(c, paginate(items, q, '/v1/customers'), q.expand)
  })

  api.get('/customers/search', (c) => {
    const q = parseParams(customerSearchSchema, c.get('params'))
    const found = engine.searchCustomers(q.query)
    const limit = q.limit ?? 10
    const offset = q.page !== undefined ? Number.parseInt(q.page, 10) || 0 : 0
    const data = found.slice(offset, offset + limit)
    const hasMore = found.length > offset + limit
    return send(
      c,
      {
        object: 'search_result',
        data,
        has_more: hasMore,
        next_page: hasMore ? String(offset + limit) : null,
        url: '/v1/customers/search',
      },
      q.expand,
    )
  })

  api.get('/customers/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveCustomer(c.req.param('id')), q.expand)
  })

  api.post('/customers/:id', (c) => {
    const q = parseParams(customerUpdateSchema, c.get('params'))
    return send(c, engine.updateCustomer(c.req.param('id'), q, origin(c)), q.expand)
  })

  api.delete('/customers/:id', (c) => {
    parseParams(emptyParams, c.get('params'))
    return c.json(engine.deleteCustomer(c.req.param('id'), origin(c)))
  })

  api.get('/payment_methods/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrievePaymentMethod(c.req.param('id')), q.expand)
  })

  // ------------------------------------------------------------ checkout

  api.post('/checkout/sessions', (c) => {
    const q = parseParams(checkoutCreateSchema, c.get('params'))
    return send(c, engine.createCheckoutSession(q, options.publicUrl(c)), q.expand)
  })

  api.get('/checkout/sessions', (c) => {
    const q = parseParams(checkoutListSchema, c.get('params'))
    const items = engine
      .listCheckoutSessions()
      .filter((s) => q.customer === undefined || s.customer === q.customer)
      .filter((s) => q.subscription === undefined || s.subscription === q.subscription)
      .filter((s) => q.status === undefined || s.status === q.status)
    return send(c, paginate(items, q, '/v1/checkout/sessions'), q.expand)
  })

  api.get('/checkout/sessions/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveCheckoutSession(c.req.param('id')), q.expand)
  })

  api.get('/checkout/sessions/:id/line_items', (c) => {
    const q = parseParams(
      z.strictObject({
        limit: z.optional(z.string()),
        starting_after: z.optional(z.string()),
        ending_before: z.optional(z.string()),
        expand: z.optional(z.array(z.string())),
      }),
      c.get('params'),
    )
    return send(c, engine.checkoutLineItems(c.req.param('id')), q.expand)
  })

  api.post('/checkout/sessions/:id/expire', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.expireCheckoutSession(c.req.param('id'), origin(c)), q.expand)
  })

  // ------------------------------------------------------------ subscriptions

  api.get('/subscriptions', (c) => {
    const q = parseParams(subscriptionListSchema, c.get('params'))
    const status = q.status
    const items = engine
      .listSubscriptions()
      .filter((s) => q.customer === undefined || s.customer === q.customer)
      .filter(
        (s) => q.price === undefined || s.items.data.some((item) => item.price.id === q.price),
      )
      .filter((s) => {
        // Without a status filter Stripe lists every subscription that has not been canceled.
        if (status === undefined)
          return s.status !== 'canceled' && s.status !== 'incomplete_expired'
        if (status === 'all') return true
        if (status === 'ended') return s.status === 'canceled' || s.status === 'incomplete_expired'
        return s.status === status
      })
    return send(c, paginate(items, q, '/v1/subscriptions'), q.expand)
  })

  api.get('/subscriptions/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveSubscription(c.req.param('id')), q.expand)
  })

  api.post('/subscriptions/:id', (c) => {
    const q = parseParams(subscriptionUpdateSchema, c.get('params'))
    return send(c, engine.updateSubscription(c.req.param('id'), q, origin(c)), q.expand)
  })

  api.delete('/subscriptions/:id', (c) => {
    const q = parseParams(subscriptionCancelSchema, c.get('params'))
    return send(
      c,
      engine.cancelSubscription(c.req.param('id'), q.cancellation_details, origin(c)),
      q.expand,
    )
  })

  api.get('/subscription_items/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveSubscriptionItem(c.req.param('id')), q.expand)
  })

  api.post('/subscription_items/:id', (c) => {
    const q = parseParams(subscriptionItemUpdateSchema, c.get('params'))
    return send(c, engine.updateSubscriptionItem(c.req.param('id'), q, origin(c)), q.expand)
  })

  // ------------------------------------------------------------ invoices

  // Before `/invoices/:id`, which would take `create_preview` for an id.
  api.post('/invoices/create_preview', (c) => {
    const q = parseParams(invoicePreviewSchema, c.get('params'))
    return send(c, engine.previewInvoice(q), q.expand)
  })

  api.get('/invoices', (c) => {
    const q = parseParams(invoiceListSchema, c.get('params'))
    const items = engine
      .listInvoices()
      .filter((i) => q.customer === undefined || i.customer === q.customer)
      .filter(
        (i) =>
          q.subscription === undefined ||
          i.parent.subscription_details.subscription === q.subscription,
      )
      .filter((i) => q.status === undefined || i.status === q.status)
    return send(c, paginate(items, q, '/v1/invoices'), q.expand)
  })

  api.get('/invoices/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveInvoice(c.req.param('id')), q.expand)
  })

  api.post('/invoices/:id/pay', (c) => {
    const q = parseParams(invoicePaySchema, c.get('params'))
    return send(c, engine.payInvoice(c.req.param('id'), q.payment_method, origin(c)), q.expand)
  })

  // ------------------------------------------------------------ billing portal

  api.post('/billing_portal/sessions', (c) => {
    const q = parseParams(portalCreateSchema, c.get('params'))
    return send(c, engine.createPortalSession(q, options.publicUrl(c)), q.expand)
  })

  // ------------------------------------------------------------ events

  api.get('/events', (c) => {
    const q = parseParams(eventListSchema, c.get('params'))
    const matches = (type: string, pattern: string) =>
      pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern
    const items = engine
      .listEvents()
      .filter((e) => q.type === undefined || matches(e.type, q.type))
      .filter((e) => q.types === undefined || q.types.some((t) => matches(e.type, t)))
    return send(c, paginate(items, q, '/v1/events'), q.expand)
  })

  api.get('/events/:id', (c) => {
    const q = parseParams(retrieveParams, c.get('params'))
    return send(c, engine.retrieveEvent(c.req.param('id')), q.expand)
  })

  return api
}
