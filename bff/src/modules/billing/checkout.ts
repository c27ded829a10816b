/**
 * Checkout and the Customer Portal at Stripe: a purchase starts from the database's view of the
 * user (never a kept read), one customer per user, and is confirmed only by a stored webhook.
 */
import { ApiError, checkoutStatusSchema, planIdSchema } from '@tessera/contracts'
import type { CheckoutStatus, Entitlements, PlanId, RedirectResponse } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type Stripe from 'stripe'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { customerOfUser, lockCustomerOfUser, subscriptionsOfUser } from './store.ts'
import { callStripe, isStripeMissing, toUpstreamError } from './stripe-client.ts'
import type { StripeClients } from './stripe-client.ts'
import { entitlementsOfState } from './subscription-state.ts'
import type { SubscriptionState } from './subscription-state.ts'

/** A second checkout click for the same plan within this time gets the same Checkout Session. */
export const CHECKOUT_REUSE_MS = 10 * 60_000

/** The signed-in user, as billing needs them. */
export interface BillingUser {
  userId: string
  email: string
  claims: UserClaims
  /** Their session (whose current workspace a Team checkout is for when none is named). */
  sessionId?: string
}

/** A session as billing needs it: whose, and which (its current workspace). */
export interface BillingSession {
  id: string
  userId: string
  claims: UserClaims
}

/** A Team checkout: the workspace it pays for and its seats (the checks are the caller's). */
export interface TeamPurchase {
  workspaceId: string
  quantity: number
}

export function createCheckout(deps: {
  sql: Sql
  stripe: StripeClients
  clock: Clock
  publicOrigin: string
  priceOf(plan: Exclude<PlanId, 'free'>): Promise<string>
  /** The user's subscription read from the database now, not from memory. */
  readFresh(claims: UserClaims): Promise<SubscriptionState | null>
  /** The entitlements a confirmed checkout shows: the team's for a team purchase. */
  entitlementsIn?(claims: UserClaims, workspaceId: string): Promise<Entitlements>
}) {
  const { sql, stripe, clock, publicOrigin, priceOf } = deps
  return {
    async startCheckout(
      user: BillingUser,
      plan: Exclude<PlanId, 'free'>,
      team: TeamPurchase | null = null,
    ): Promise<RedirectResponse> {
      // Fresh from the database, not the kept read: a purchase must not hang on a stale one. A
      // team's was checked by the caller.
      if (team === null && entitlementsOfState(await deps.readFresh(user.claims)).plan !== 'free')
        throw new ApiError('already_subscribed')
      // The subscription's metadata names the team; a personal one names none.
      const metadata = {
        user_id: user.userId,
        plan,
        ...(team === null ? {} : { workspace_id: team.workspaceId }),
      }
      // A second click reuses the session only for the same plan, workspace and seats.
      const purpose = `${plan}-${team?.workspaceId ?? 'personal'}-${team?.quantity ?? 1}`
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
          row.checkout_idempotency_key.startsWith(`tessera-checkout-${user.userId}-${purpose}-`) &&
          startedAt !== undefined &&
          clock.now() - startedAt < CHECKOUT_REUSE_MS
        const key = reuse
          ? (row.checkout_idempotency_key ?? '')
          : `tessera-checkout-${user.userId}-${purpose}-${crypto.randomUUID()}`
        const session = await callStripe(() =>
          stripe.interactive.checkout.sessions.create(
            {
              mode: 'subscription',
              customer: customerId,
              line_items: [{ price, quantity: team?.quantity ?? 1 }],
              success_url: `${publicOrigin}/billing/return?session_id={CHECKOUT_SESSION_ID}`,
              cancel_url: `${publicOrigin}/billing/plans?checkout=cancelled`,
              client_reference_id: user.userId,
              metadata,
              subscription_data: { metadata },
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

    async checkoutStatus(user: BillingUser, sessionId: string): Promise<CheckoutStatus> {
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
      const workspaceId = session.metadata?.workspace_id
      if (workspaceId !== undefined && deps.entitlementsIn !== undefined) {
        const entitlements = await deps.entitlementsIn(user.claims, workspaceId)
        const stored = (await subscriptionsOfUser(sql, user.userId)).find(
          (row) => row.stripe_subscription_id === subscriptionId,
        )
        const plan = planIdSchema.safeParse(session.metadata?.plan)
        const status = checkoutStatusSchema.shape.status.safeParse(session.status)
        return {
          status: status.success ? status.data : 'open',
          confirmed:
            session.status === 'complete' &&
            stored?.workspace_id === workspaceId &&
            entitlements.plan !== 'free',
          plan: plan.success ? plan.data : entitlements.plan,
          entitlements,
        }
      }
      const current = await deps.readFresh(user.claims)
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

    async openPortal(user: BillingUser): Promise<RedirectResponse> {
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
  }
}
