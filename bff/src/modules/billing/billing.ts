// Billing as the routes and /api/me use it: the user's subscription (kept a moment in memory),
// checkout and portal at Stripe, webhooks, reconcile, and the live events that tell open tabs.
import {
  ApiError,
  ENTITLEMENTS_EVENT_TYPE,
  SUBSCRIPTION_EVENT_TYPE,
  plans,
} from '@tessera/contracts'
import type {
  CheckoutStatus,
  Entitlements,
  PlanId,
  PlanView,
  RedirectResponse,
  SeatPreview,
  SubscriptionResponse,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import Stripe from 'stripe'
import type { Clock } from '../../platform/clock.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import type { CacheInvalidations } from '../events/cache-invalidation.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import { createCheckout } from './checkout.ts'
import type { BillingSession, BillingUser } from './checkout.ts'

export type { BillingSession, BillingUser } from './checkout.ts'
export { CHECKOUT_REUSE_MS } from './checkout.ts'
export { planViews } from './subscription-state.ts'
import { reconcileBilling } from './reconcile.ts'
import type { ReconcileReport } from './reconcile.ts'
import { subscriptionsOfUser } from './store.ts'
import { createTeamBilling } from './team-billing.ts'
import { personalEntitlements } from './team-state.ts'
import type { UsersChanged } from '../workspaces/session-contexts.ts'
import { currentWorkspaceOfSession, personalWorkspaceId } from './team-store.ts'
import { callStripe, toUpstreamError } from './stripe-client.ts'
import type { StripeClients } from './stripe-client.ts'
import {
  entitlementsOfState,
  personalSubscription,
  planViews,
  stateOfRow,
  subscriptionResponseOf,
} from './subscription-state.ts'
import type { SubscriptionState } from './subscription-state.ts'
import { isTransientDatabaseError } from './transient.ts'
import { createWebhookCryptoProvider, isSignedInTheFuture } from './webhook-crypto.ts'
import type { WebhookCryptoProvider } from './webhook-crypto.ts'
import { createWebhookBatcher, inOrder } from './webhook-batches.ts'
import type { BillingChange, WebhookResult } from './webhooks.ts'

/** Stripe's default, and the one DESIGN §6 asks for. */
export const WEBHOOK_TOLERANCE_SECONDS = 300
/** How long a price found by lookup key is kept (prices change rarely; ids never). */
const PRICE_CACHE_MS = 10 * 60_000

export interface BillingDeps {
  sql: Sql
  stripe: StripeClients
  bus: EventBus
  /** Plan changes and price changes reach every replica's kept reads at once. */
  invalidations?: CacheInvalidations
  clock: Clock
  logger: Logger
  /** Where Stripe sends people back to (`PUBLIC_ORIGIN`). */
  publicOrigin: string
  webhookSecret: string
  /** Computes webhook signatures: by default Web Crypto (webhook-crypto.ts); Node's on Node. */
  webhookCrypto?: WebhookCryptoProvider
  /** How long a user's subscription read is kept in memory (as /api/me's profile read). */
  cacheMs?: number
  /** Delays before each retry of a seat change that failed transiently (ms). */
  seatRetryDelaysMs?: readonly number[]
  /** Drops what every replica keeps of these users' workspaces (workspaces/session-contexts). */
  usersChanged?: UsersChanged | undefined
}

export interface Billing {
  plans(): PlanView[]
  /**
   * The subscription and entitlements of a workspace of the user: a team's as their role sees
   * it; their personal one for their personal workspace, one they are not a member of, or none
   * named (then without `entitlements.workspace`, as before workspaces).
   */
  subscription(claims: UserClaims, workspaceId?: string | null): Promise<SubscriptionResponse>
  entitlements(claims: UserClaims, workspaceId?: string | null): Promise<Entitlements>
  /** The entitlements of the session's current workspace (what /api/me reports). */
  entitlementsOfSession(session: BillingSession): Promise<Entitlements>
  /** The session's current workspace (its chosen one while a member, else personal). */
  currentWorkspaceOf(session: BillingSession): Promise<string | null>
  /**
   * Pro for the buyer's personal workspace; Team for a team workspace (`workspaceId`, else the
   * session's current one) whose owner or admin the buyer is, with a seat per member (min 2).
   */
  startCheckout(
    user: BillingUser,
    plan: Exclude<PlanId, 'free'>,
    workspaceId?: string,
  ): Promise<RedirectResponse>
  checkoutStatus(user: BillingUser, sessionId: string): Promise<CheckoutStatus>
  openPortal(user: BillingUser): Promise<RedirectResponse>
  /** Verifies and applies a webhook delivery; throws `webhook_signature_invalid` or a failure. */
  receiveWebhook(raw: string, signature: string): Promise<WebhookResult & { eventId: string }>
  /** Re-syncs everything from Stripe; one run at a time (`conflict` while one is running). */
  reconcile(options?: { dryRun?: boolean }): Promise<ReconcileReport>
  /** The workspaces' `onMembersChanged` seam: a team's seats follow its members. */
  onMembersChanged(workspaceId: string): Promise<void>
  /** Resolves when no seat change (nor its retries) is under way here, in this BFF. */
  seatsSettled(): Promise<void>
  /** The invite hook: 409 `seat_confirmation_required` past the paid seats, unless confirmed. */
  checkInviteSeat(tx: SqlQueryable, workspaceId: string, confirmed: boolean): Promise<void>
  /** The next invoice of the session's current team with `quantity` seats (owners, admins). */
  previewSeats(session: BillingSession, quantity: number): Promise<SeatPreview>
}

export function createBilling(deps: BillingDeps): Billing {
  const { sql, stripe, bus, clock, logger, publicOrigin, invalidations } = deps
  const webhookCrypto = deps.webhookCrypto ?? createWebhookCryptoProvider()
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
      return { current: personalSubscription(rows.map(stateOfRow)) }
    })
    return kept?.current ?? null
  }

  invalidations?.subscribe((invalidation) => {
    if (invalidation.cache === 'subscriptions') cache.delete(invalidation.userId)
    if (invalidation.cache === 'prices') prices.clear()
  })

  /**
   * Tells the user's open tabs (on every replica) and every replica's kept read: in the change's
   * transaction when it has one (a webhook), else in statements of their own right after.
   */
  const publishChange = async (change: BillingChange, tx?: SqlQueryable): Promise<void> => {
    const before = subscriptionResponseOf(change.before)
    const after = subscriptionResponseOf(change.after)
    const subscriptionChanged = JSON.stringify(before) !== JSON.stringify(after)
    const entitlementsChanged =
      JSON.stringify(before.entitlements) !== JSON.stringify(after.entitlements)
    const changed = subscriptionChanged || entitlementsChanged
    // In a transaction the statements go out together, pipelined on its connection, and run in
    // the order sent (docs/decisions/035); without one, one after the other.
    const steps: (() => Promise<unknown>)[] = [
      ...change.workspaceIds.map((workspaceId) => () => team.publishTeam(workspaceId, tx)),
      async () => invalidations?.publish({ cache: 'subscriptions', userId: change.userId }, tx),
      async () => deps.usersChanged?.([change.userId], tx),
    ]
    // The personal workspace named, so tabs working in a team ignore it (and the reverse).
    let personal: Promise<string | null> = Promise.resolve(null)
    if (changed) steps.push(() => (personal = personalWorkspaceId(tx ?? sql, change.userId)))
    await inOrder(steps, tx !== undefined)
    if (!changed) return
    const personalId = await personal
    if (personalId !== null)
      after.entitlements = personalEntitlements(after.entitlements, personalId)
    const topic = userTopic(change.userId)
    const publish = (type: string, data: unknown) => () =>
      bus.publish({ topic, event: createLiveEvent(type, data, clock) }, tx)
    const events: (() => Promise<unknown>)[] = []
    if (subscriptionChanged) events.push(publish(SUBSCRIPTION_EVENT_TYPE, after))
    if (entitlementsChanged)
      events.push(publish(ENTITLEMENTS_EVENT_TYPE, { entitlements: after.entitlements }))
    await inOrder(events, tx !== undefined)
  }

  /** Replaces this process's kept read once a change is committed. */
  const keep = (change: BillingChange): void => {
    cache.set(change.userId, { current: change.after })
  }

  // Deliveries arriving together are applied in one transaction (docs/decisions/035).
  const webhooks = createWebhookBatcher({
    sql,
    stripe: stripe.interactive,
    logger,
    onChange: (tx, change) => publishChange(change, tx),
  })

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

  const team = createTeamBilling({
    sql,
    stripe: stripe.background,
    interactive: stripe.interactive,
    bus,
    clock,
    logger,
    ...(deps.seatRetryDelaysMs === undefined ? {} : { retryDelaysMs: deps.seatRetryDelaysMs }),
    usersChanged: deps.usersChanged,
  })

  const entitlements = async (
    claims: UserClaims,
    workspaceId?: string | null,
  ): Promise<Entitlements> => {
    const personal = entitlementsOfState(await readCurrent(claims))
    if (workspaceId === undefined || workspaceId === null) return personal
    const found = await team.entitlements(claims, workspaceId)
    if (found !== null && found !== 'personal') return found
    const personalId =
      found === 'personal' ? workspaceId : await personalWorkspaceId(sql, claims.sub)
    return personalId === null ? personal : personalEntitlements(personal, personalId)
  }

  const currentWorkspace = (session: BillingSession) =>
    currentWorkspaceOfSession(sql, session.id, session.userId)
  const currentWorkspaceOf = async (session: BillingSession) =>
    (await currentWorkspace(session))?.id ?? null

  const checkout = createCheckout({
    sql,
    stripe,
    clock,
    publicOrigin,
    priceOf,
    readFresh: (claims) => {
      cache.delete(claims.sub)
      return readCurrent(claims)
    },
    entitlementsIn: entitlements,
  })

  return {
    plans: () => planViews,

    async subscription(claims, workspaceId) {
      if (workspaceId !== undefined && workspaceId !== null) {
        const found = await team.subscription(claims, workspaceId)
        if (found !== null && found !== 'personal') return found
      }
      return subscriptionResponseOf(await readCurrent(claims))
    },

    entitlements,

    async entitlementsOfSession(session) {
      const current = await currentWorkspace(session)
      // The personal workspace needs no read of a team's (the common case: one round trip less).
      if (current?.kind === 'personal')
        return personalEntitlements(
          entitlementsOfState(await readCurrent(session.claims)),
          current.id,
        )
      return entitlements(session.claims, current?.id ?? null)
    },

    currentWorkspaceOf,

    async startCheckout(user, plan, workspaceId) {
      if (!plans[plan].perSeat) {
        await team.personalCheckout(user.userId, workspaceId)
        return checkout.startCheckout(user, plan)
      }
      const { sessionId } = user
      const target =
        workspaceId ??
        (sessionId === undefined ? null : await currentWorkspaceOf({ id: sessionId, ...user }))
      return checkout.startCheckout(user, plan, await team.teamCheckout(user.userId, target))
    },

    onMembersChanged: (workspaceId) => team.membersChanged(workspaceId),
    seatsSettled: () => team.settled(),
    checkInviteSeat: (tx, workspaceId, confirmed) =>
      team.checkInviteSeat(tx, workspaceId, confirmed),

    async previewSeats(session, quantity) {
      const workspaceId = await currentWorkspaceOf(session)
      if (workspaceId === null) throw new ApiError('not_found')
      return team.previewSeats(session.userId, workspaceId, quantity)
    },

    checkoutStatus: checkout.checkoutStatus,
    openPortal: checkout.openPortal,

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
        result = await webhooks.apply(event)
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
      if (result.change !== null) keep(result.change)
      // A price changed at Stripe: every replica looks its lookup keys up again.
      if (eventType.startsWith('price.')) {
        await invalidations?.publish({ cache: 'prices' }).catch((error: unknown) => {
          logger.warn('price cache invalidation not published', { error, eventId })
        })
      }
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
        for (const change of changes) {
          keep(change)
          // Reconcile commits its fixes itself: their events follow in statements of their own.
          await publishChange(change)
        }
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
