// Billing as the routes and /api/me use it: the user's subscription (kept a moment in memory),
// checkout and portal at Stripe, webhooks, reconcile, and the live events that tell open tabs.
import {
  ApiError,
  ENTITLEMENTS_EVENT_TYPE,
  SUBSCRIPTION_EVENT_TYPE,
  checkoutStatusSchema,
  planIdSchema,
  planList,
  plans,
} from '@tessera/contracts'
import type {
  CheckoutStatus,
  Entitlements,
  PlanId,
  PlanView,
  RedirectResponse,
  SubscriptionResponse,
} from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import Stripe from 'stripe'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventHub } from '../events/event-hub.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import { reconcileBilling } from './reconcile.ts'
import type { ReconcileReport } from './reconcile.ts'
import { customerOfUser, lockCustomerOfUser, subscriptionsOfUser } from './store.ts'
import { callStripe, isStripeMissing, toUpstreamError } from './stripe-client.ts'
import type { StripeClients } from './stripe-client.ts'
import {
  currentSubscription,
  entitlementsOfState,
  stateOfRow,
  subscriptionResponseOf,
} from './subscription-state.ts'
import type { SubscriptionState } from './subscription-state.ts'
import { isTransientDatabaseError } from './transient.ts'
import { createWebhookCryptoProvider, isSignedInTheFuture } from './webhook-crypto.ts'
import { applyWebhookEvent } from './webhooks.ts'
import type { BillingChange, WebhookResult } from './webhooks.ts'

/** Stripe's default, and the one DESIGN §6 asks for. */
export const WEBHOOK_TOLERANCE_SECONDS = 300
/** A second checkout click for the same plan within this time gets the same Checkout Session. */
export const CHECKOUT_REUSE_MS = 10 * 60_000
/** How long a price found by lookup key is kept (prices change rarely; ids never). */
const PRICE_CACHE_MS = 10 * 60_000

/** The signed-in user, as billing needs them. */
export interface BillingUser {
  userId: string
  email: string
  claims: UserClaims
}

export interface BillingDeps {
  sql: Sql
  stripe: StripeClients
  hub: EventHub
  clock: Clock
  logger: Logger
  /** Where Stripe sends people back to (`PUBLIC_ORIGIN`). */
  publicOrigin: string
  webhookSecret: string
  /** How long a user's subscription read is kept in memory (as /api/me's profile read). */
  cacheMs?: number
}

export interface Billing {
  plans(): PlanView[]
  /** The user's current subscription and entitlements. */
  subscription(claims: UserClaims): Promise<SubscriptionResponse>
  entitlements(claims: UserClaims): Promise<Entitlements>
  startCheckout(user: BillingUser, plan: Exclude<PlanId, 'free'>): Promise<RedirectResponse>
  checkoutStatus(user: BillingUser, sessionId: string): Promise<CheckoutStatus>
  openPortal(user: BillingUser): Promise<RedirectResponse>
  /** Verifies and applies a webhook delivery; throws `webhook_signature_invalid` or a failure. */
  receiveWebhook(raw: string, signature: string): Promise<WebhookResult & { eventId: string }>
  /** Re-syncs everything from Stripe; one run at a time (`conflict` while one is running). */
  reconcile(options?: { dryRun?: boolean }): Promise<ReconcileReport>
}

export const planViews: PlanView[] = planList.map((plan) => ({
  id: plan.id,
  name: plan.name,
  tagline: plan.tagline,
  monthlyPrice: plan.monthlyPrice,
  currency: plan.currency,
  monthlyTokens: plan.limits.monthlyTokens,
  models: [...plan.limits.models],
  features: [...plan.features],
}))

// Web Crypto, the signing secret imported once (not on every delivery as the SDK's provider does).
const webhookCrypto = createWebhookCryptoProvider()

export function createBilling(deps: BillingDeps): Billing {
  const { sql, stripe, hub, clock, logger, publicOrigin } = deps
  // The user's current subscription; a change applied in this process replaces it at once.
  const cache = createRecentCache<{ current: SubscriptionState | null }>({
    max: 10_000,
    ttlMs: deps.cacheMs ?? 2000,
    clock,
  })
  const prices = new Map<PlanId, { id: string; until: number }>()
  let reconciling = false

  // Requests that miss at once share one read; a read that started before a change applied in
  // this process is not kept over it (the cache's generations).
  const readCurrent = async (claims: UserClaims): Promise<SubscriptionState | null> => {
    const kept = await cache.getOrLoad(claims.sub, async () => {
      // As the user: RLS decides which rows they reach.
      const rows = await withUser(sql, claims, (tx) => subscriptionsOfUser(tx, claims.sub))
      return { current: currentSubscription(rows.map(stateOfRow)) }
    })
    return kept?.current ?? null
  }

  /** Tells the user's open tabs, and replaces the kept read, after a change was committed. */
  const announce = (change: BillingChange): void => {
    cache.set(change.userId, { current: change.after })
    const before = subscriptionResponseOf(change.before)
    const after = subscriptionResponseOf(change.after)
    const topic = userTopic(change.userId)
    if (JSON.stringify(before) !== JSON.stringify(after))
      hub.publish({ topic, event: createLiveEvent(SUBSCRIPTION_EVENT_TYPE, after, clock) })
    if (JSON.stringify(before.entitlements) !== JSON.stringify(after.entitlements)) {
      hub.publish({
        topic,
        event: createLiveEvent(
          ENTITLEMENTS_EVENT_TYPE,
          { entitlements: after.entitlements },
          clock,
        ),
      })
    }
  }

  const priceOf = async (plan: Exclude<PlanId, 'free'>): Promise<string> => {
    const kept = prices.get(plan)
    if (kept !== undefined && kept.until > clock.now()) return kept.id
    const lookupKey = plans[plan].lookupKey
    if (lookupKey === null) throw new Error(`The ${plan} plan has no Stripe lookup key.`)
    const found = await callStripe(() =>
      stripe.interactive.prices.list({ lookup_keys: [lookupKey], limit: 1 }),
    )
    const price = found.data[0]
    if (price === undefined)
      throw new Error(`Stripe has no price with lookup_key ${lookupKey}: seed it (see README).`)
    prices.set(plan, { id: price.id, until: clock.now() + PRICE_CACHE_MS })
    return price.id
  }

  return {
    plans: () => planViews,

    async subscription(claims) {
      return subscriptionResponseOf(await readCurrent(claims))
    },

    async entitlements(claims) {
      return entitlementsOfState(await readCurrent(claims))
    },

    async startCheckout(user, plan) {
      // Fresh from the database, not the kept read: a purchase must not hang on a stale one.
      cache.delete(user.userId)
      if (entitlementsOfState(await readCurrent(user.claims)).plan !== 'free')
        throw new ApiError('already_subscribed')
      const price = await priceOf(plan)
      const url = await sql.transaction(async (tx) => {
        // The row lock: a second request of this user waits here until the first has committed,
        // then finds the customer (and the checkout key) the first one stored.
        const row = await lockCustomerOfUser(tx, user.userId)
        let customerId = row.stripe_customer_id
        if (customerId === null) {
          const customer = await callStripe(() =>
            stripe.interactive.customers.create(
              { email: user.email, metadata: { user_id: user.userId } },
              // Should this transaction fail after Stripe made the customer, the retry gets the
              // same one back instead of a second customer.
              { idempotencyKey: `tessera-customer-${user.userId}` },
            ),
          )
          customerId = customer.id
        }
        const startedAt = row.checkout_started_at?.getTime()
        const reuse =
          row.checkout_plan === plan &&
          row.checkout_idempotency_key !== null &&
          startedAt !== undefined &&
          clock.now() - startedAt < CHECKOUT_REUSE_MS
        const key = reuse
          ? (row.checkout_idempotency_key ?? '')
          : `tessera-checkout-${user.userId}-${plan}-${crypto.randomUUID()}`
        const session = await callStripe(() =>
          stripe.interactive.checkout.sessions.create(
            {
              mode: 'subscription',
              customer: customerId,
              line_items: [{ price, quantity: 1 }],
              success_url: `${publicOrigin}/billing/return?session_id={CHECKOUT_SESSION_ID}`,
              cancel_url: `${publicOrigin}/billing/plans?checkout=cancelled`,
              client_reference_id: user.userId,
              metadata: { user_id: user.userId, plan },
              subscription_data: { metadata: { user_id: user.userId, plan } },
            },
            { idempotencyKey: key },
          ),
        )
        await execute(
          queries
            .updateTable('billing_customers')
            .set({
              stripe_customer_id: customerId,
              ...(reuse
                ? {}
                : {
                    checkout_plan: plan,
                    checkout_idempotency_key: key,
                    checkout_started_at: new Date(clock.now()),
                  }),
            })
            .where('user_id', '=', user.userId),
          tx,
        )
        if (session.url === null)
          throw new Error('Stripe returned a Checkout Session without a url.')
        return session.url
      })
      return { url }
    },

    async checkoutStatus(user, sessionId) {
      let session: Stripe.Checkout.Session
      try {
        session = await stripe.interactive.checkout.sessions.retrieve(sessionId)
      } catch (error) {
        if (isStripeMissing(error)) throw new ApiError('not_found')
        throw toUpstreamError(error)
      }
      const customer = await customerOfUser(sql, user.userId)
      const sessionCustomer =
        typeof session.customer === 'string' ? session.customer : (session.customer?.id ?? null)
      // Another user's session is none of this user's business: it does not exist for them.
      if (
        session.client_reference_id !== user.userId &&
        (sessionCustomer === null || sessionCustomer !== customer?.stripe_customer_id)
      ) {
        throw new ApiError('not_found')
      }
      const subscriptionId =
        typeof session.subscription === 'string'
          ? session.subscription
          : (session.subscription?.id ?? null)
      // Confirmed only by what a webhook stored, never by the redirect (nor by Stripe's answer).
      cache.delete(user.userId)
      const current = await readCurrent(user.claims)
      const entitlements = entitlementsOfState(current)
      const confirmed =
        session.status === 'complete' &&
        subscriptionId !== null &&
        current?.stripeSubscriptionId === subscriptionId &&
        entitlements.plan !== 'free'
      const plan = planIdSchema.safeParse(session.metadata?.plan)
      const status = checkoutStatusSchema.shape.status.safeParse(session.status)
      return {
        // A status newer than this code knows of is not a finished one.
        status: status.success ? status.data : 'open',
        confirmed,
        plan: plan.success ? plan.data : entitlements.plan,
        entitlements,
      }
    },

    async openPortal(user) {
      const customer = await customerOfUser(sql, user.userId)
      if (customer?.stripe_customer_id == null) {
        throw new ApiError('not_found', {
          message: 'You have no billing account yet. Choose a plan first.',
        })
      }
      const customerId = customer.stripe_customer_id
      const portal = await callStripe(() =>
        stripe.interactive.billingPortal.sessions.create({
          customer: customerId,
          return_url: `${publicOrigin}/billing`,
        }),
      )
      return { url: portal.url }
    },

    async receiveWebhook(raw, signature) {
      let event: Stripe.Event
      try {
        event = await stripe.interactive.webhooks.constructEventAsync(
          raw,
          signature,
          deps.webhookSecret,
          WEBHOOK_TOLERANCE_SECONDS,
          webhookCrypto,
        )
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
          throw new ApiError('webhook_signature_invalid', { details: { reason: error.message } })
        }
        // Signed, but not JSON: nothing a retry can fix.
        if (error instanceof SyntaxError) {
          throw new ApiError('validation_failed', {
            details: { issues: [{ path: '', message: 'The body is not valid JSON.' }] },
          })
        }
        throw error
      }
      // The SDK's age check reads Date.now(); the bound ahead reads the same clock.
      if (isSignedInTheFuture(signature, WEBHOOK_TOLERANCE_SECONDS, Date.now())) {
        throw new ApiError('webhook_signature_invalid', {
          details: { reason: 'Timestamp is ahead of the tolerance zone' },
        })
      }
      // A signed body need not be an event (`null`, a number): applyWebhookEvent calls it
      // invalid, and the acknowledgement still needs an id.
      const signed = event as Partial<Record<'id' | 'type', unknown>> | null
      const eventId = typeof signed?.id === 'string' ? signed.id : ''
      const eventType = typeof signed?.type === 'string' ? signed.type : ''
      let result: WebhookResult
      try {
        result = await applyWebhookEvent(
          { sql, stripe: stripe.interactive, logger },
          event as Stripe.Event,
        )
      } catch (error) {
        const upstream = toUpstreamError(error)
        const transient =
          upstream instanceof ApiError
            ? upstream
            : isTransientDatabaseError(error)
              ? new ApiError('upstream_unavailable', { details: { service: 'database' } })
              : null
        if (transient === null) throw error
        // Not applied and not recorded: Stripe's retry will try again.
        logger.warn('stripe webhook: transient failure, Stripe will retry', {
          eventId,
          type: eventType,
          error,
        })
        throw transient
      }
      if (result.change !== null) announce(result.change)
      logger.debug('stripe webhook', { eventId, type: eventType, outcome: result.outcome })
      return { ...result, eventId }
    },

    async reconcile(options = {}) {
      if (reconciling) {
        throw new ApiError('conflict', { message: 'A reconcile is running already. Wait for it.' })
      }
      reconciling = true
      try {
        const { report, changes } = await reconcileBilling(
          { sql, stripe: stripe.background, now: () => clock.now() },
          options,
        )
        for (const change of changes) announce(change)
        logger.info('billing reconcile', {
          dryRun: report.dryRun,
          drift: report.drift.length,
          fixed: report.fixed,
        })
        return report
      } finally {
        reconciling = false
      }
    },
  }
}
