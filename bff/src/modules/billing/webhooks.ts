// Applying Stripe webhook events: a ledger row and the event's effects in one transaction, the
// subscription's state applied only when the event is newer than what is stored, re-fetched
// from Stripe when that cannot be told, so neither order nor redelivery changes the outcome.
import { isPlainJson } from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type Stripe from 'stripe'
import { z } from 'zod/mini'
import type { BillingEventOutcome, BillingSubscriptionRow } from '../../platform/db/schema.ts'
import type { Logger } from '../../platform/logger.ts'
import { recordEvent, settleEvent } from './ledger.ts'
import {
  recordEventAndLockCustomer,
  saveSubscriptionForEvent,
  subscriptionsOfUser,
} from './store.ts'
import { isStripeMissing } from './stripe-client.ts'
import { resolveWorkspace } from './team-store.ts'
import {
  customerIdOf,
  differences,
  personalSubscription,
  stateOf,
  stateOfRow,
  stripeSubscriptionSchema,
} from './subscription-state.ts'
import type { SubscriptionState } from './subscription-state.ts'

/** What a delivery did: a ledger outcome, or `duplicate` for an event already recorded. */
export type WebhookOutcome = Exclude<BillingEventOutcome, 'received'> | 'duplicate'

/**
 * A user whose stored subscriptions an event changed: their personal one before and after, and
 * the team workspaces whose subscription changed (their members are told).
 */
export interface BillingChange {
  userId: string
  before: SubscriptionState | null
  after: SubscriptionState | null
  workspaceIds: string[]
}

export interface WebhookResult {
  outcome: WebhookOutcome
  change: BillingChange | null
}

const eventEnvelopeSchema = z
  .object({
    id: z.string().check(z.minLength(1), z.maxLength(255)),
    type: z.string().check(z.minLength(1), z.maxLength(255)),
    created: z.int().check(z.nonnegative()),
    data: z.object({ object: z.unknown() }),
  })
  .check(z.refine(isPlainJson, 'The event contains a character that is not text.'))
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>

const checkoutSessionSchema = z.object({
  id: z.string(),
  object: z.literal('checkout.session'),
  mode: z.string(),
  customer: z.nullable(z.union([z.string(), z.object({ id: z.string() })])),
  subscription: z.nullable(z.union([z.string(), z.object({ id: z.string() })])),
})

/** Where an event points: a subscription's full state, or only its id (then it is fetched). */
type Target =
  | { kind: 'state'; state: SubscriptionState }
  | { kind: 'reference'; subscriptionId: string; customerId: string }

const idOf = (value: string | { id: string }): string =>
  typeof value === 'string' ? value : value.id

/** What an event is about, or why it is not for us. */
function targetOf(event: EventEnvelope): Target | { skip: 'ignored' | 'invalid'; why?: string } {
  if (event.type.startsWith('customer.subscription.')) {
    const parsed = stripeSubscriptionSchema.safeParse(event.data.object)
    if (!parsed.success) return { skip: 'invalid', why: parsed.error.message }
    return { kind: 'state', state: stateOf(parsed.data) }
  }
  if (event.type === 'checkout.session.completed') {
    const parsed = checkoutSessionSchema.safeParse(event.data.object)
    if (!parsed.success) return { skip: 'invalid', why: parsed.error.message }
    const session = parsed.data
    if (session.mode !== 'subscription' || session.subscription === null || !session.customer)
      return { skip: 'ignored' }
    // The session names the subscription without its state: it is fetched, unless stale.
    return {
      kind: 'reference',
      subscriptionId: idOf(session.subscription),
      customerId: idOf(session.customer),
    }
  }
  return { skip: 'ignored' }
}

export interface WebhookDeps {
  sql: Sql
  /** Fetches a subscription's current state (a person's short-timeout client: Stripe waits). */
  stripe: Stripe
  logger: Logger
  /**
   * Runs in the transaction that applies a change, before it commits: the live events that
   * announce it are written with it (docs/decisions/018).
   */
  onChange?: (tx: SqlQueryable, change: BillingChange) => Promise<void>
}

/** A verified event checked before any transaction: what it is about, or why it is not for us. */
export type PreparedEvent =
  | { kind: 'answered'; result: WebhookResult }
  | { kind: 'record'; event: EventEnvelope; outcome: 'ignored' | 'invalid' }
  | { kind: 'apply'; event: EventEnvelope; target: Target }

/**
 * Checks an event's shape and finds its target: no database, no Stripe. An envelope that is not
 * an event is answered here (acknowledged and logged: a retry cannot help).
 */
export function prepareWebhookEvent(
  logger: Logger,
  event: Stripe.Event | EventEnvelope,
): PreparedEvent {
  const envelope = eventEnvelopeSchema.safeParse(event)
  if (!envelope.success) {
    // Signed by Stripe yet not an event: retrying cannot help, so it is acknowledged and logged.
    logger.error('stripe webhook: not an event', { issues: envelope.error.issues })
    return { kind: 'answered', result: { outcome: 'invalid', change: null } }
  }
  const verified = envelope.data
  const target = targetOf(verified)
  if (!('skip' in target)) return { kind: 'apply', event: verified, target }
  if (target.skip === 'invalid') {
    logger.error('stripe webhook: event object not understood', {
      eventId: verified.id,
      type: verified.type,
      why: target.why,
    })
  }
  return { kind: 'record', event: verified, outcome: target.skip }
}

/** Which deliveries must be applied one after the other: those of one customer (or one event). */
export function orderKeyOf(prepared: Exclude<PreparedEvent, { kind: 'answered' }>): string {
  if (prepared.kind === 'record') return `event:${prepared.event.id}`
  const { target } = prepared
  return `customer:${target.kind === 'state' ? target.state.stripeCustomerId : target.customerId}`
}

/**
 * Applies a prepared event on `tx`, an open transaction (a `record` event may also run on the
 * database itself: its one statement is its own transaction). Throws on failures that may pass.
 */
export async function applyPreparedEvent(
  deps: WebhookDeps,
  tx: SqlQueryable,
  prepared: Exclude<PreparedEvent, { kind: 'answered' }>,
): Promise<WebhookResult> {
  if (prepared.kind === 'record') {
    const recorded = await recordEvent(tx, prepared.event, null, prepared.outcome)
    return { outcome: recorded ? prepared.outcome : 'duplicate', change: null }
  }
  const applied = await applyToSubscription(deps, tx, prepared.event, prepared.target)
  if (applied.change !== null) await deps.onChange?.(tx, applied.change)
  return applied
}

/** Logs what a committed delivery's outcome calls for. */
export function noteWebhookOutcome(
  logger: Logger,
  prepared: Exclude<PreparedEvent, { kind: 'answered' }>,
  result: WebhookResult,
): void {
  if (result.outcome !== 'unknown_customer' || prepared.kind !== 'apply') return
  const { event, target } = prepared
  logger.warn('stripe webhook: event for a customer we do not know', {
    eventId: event.id,
    type: event.type,
    customer: target.kind === 'state' ? target.state.stripeCustomerId : target.customerId,
  })
}

/** Applies a prepared event in a transaction of its own. */
export async function applyPreparedAlone(
  deps: WebhookDeps,
  prepared: Exclude<PreparedEvent, { kind: 'answered' }>,
): Promise<WebhookResult> {
  const result =
    prepared.kind === 'record'
      ? await applyPreparedEvent(deps, deps.sql, prepared)
      : await deps.sql.transaction((tx) => applyPreparedEvent(deps, tx, prepared))
  noteWebhookOutcome(deps.logger, prepared, result)
  return result
}

/**
 * Applies one verified event. Throws on failures that may pass (database, Stripe unreachable):
 * nothing is recorded then, and Stripe's retry tries again.
 */
export async function applyWebhookEvent(
  deps: WebhookDeps,
  event: Stripe.Event | EventEnvelope,
): Promise<WebhookResult> {
  const prepared = prepareWebhookEvent(deps.logger, event)
  if (prepared.kind === 'answered') return prepared.result
  return applyPreparedAlone(deps, prepared)
}

/** The state with a metadata workspace that does not exist dropped (and logged). */
async function checkedState(
  deps: WebhookDeps,
  tx: SqlQueryable,
  event: EventEnvelope,
  state: SubscriptionState,
): Promise<SubscriptionState> {
  const resolved = await resolveWorkspace(tx, state)
  if (resolved.unknown !== null) {
    deps.logger.warn('stripe webhook: the subscription names a workspace that does not exist', {
      eventId: event.id,
      subscriptionId: state.stripeSubscriptionId,
      workspaceId: resolved.unknown,
    })
  }
  return resolved.state
}

async function applyToSubscription(
  deps: WebhookDeps,
  tx: SqlQueryable,
  event: EventEnvelope,
  target: Target,
): Promise<WebhookResult> {
  const subscriptionId =
    target.kind === 'state' ? target.state.stripeSubscriptionId : target.subscriptionId
  const customerId = target.kind === 'state' ? target.state.stripeCustomerId : target.customerId
  // The ledger first: a redelivery stops here, before any effect. In the same statement, one
  // writer per customer: events of one customer apply one after the other.
  const recorded = await recordEventAndLockCustomer(tx, event, subscriptionId, customerId)
  if (!recorded.recorded) return { outcome: 'duplicate', change: null }
  const settle = async (
    outcome: Exclude<WebhookOutcome, 'duplicate'>,
    userId: string | null,
    change: BillingChange | null = null,
  ): Promise<WebhookResult> => {
    const applied = outcome === 'applied' || outcome === 'refetched'
    await settleEvent(tx, event.id, outcome, userId, applied)
    return { outcome, change }
  }

  const customer = recorded.customer
  if (customer === null) return settle('unknown_customer', null)
  const { userId } = customer
  const checked: Target =
    target.kind === 'state'
      ? { kind: 'state', state: await checkedState(deps, tx, event, target.state) }
      : target
  // The rows may be older than a writer the lock waited for (the statement's snapshot came
  // first); the save then refuses (or a same-second agreement asks to be sure), and they are
  // read again, now under the lock, once.
  let rows = customer.subscriptions
  for (let attempt = 1; ; attempt++) {
    const current = attempt > 1
    const decided = await decideAndSave(deps, tx, event, checked, userId, rows, current, settle)
    if (decided !== 'moved') return decided
    if (attempt >= 2) throw new Error('The subscription row kept changing under the customer lock.')
    rows = await subscriptionsOfUser(tx, userId)
  }
}

/**
 * Applies the event on the rows read; `moved` when the stored row is no longer the one read, or
 * when the decision needs rows read under the customer lock (`current`) and these may be older.
 */
async function decideAndSave(
  deps: WebhookDeps,
  tx: SqlQueryable,
  event: EventEnvelope,
  target: Target,
  userId: string,
  rows: BillingSubscriptionRow[],
  current: boolean,
  settle: (
    outcome: Exclude<WebhookOutcome, 'duplicate'>,
    userId: string | null,
  ) => Promise<WebhookResult>,
): Promise<WebhookResult | 'moved'> {
  const subscriptionId =
    target.kind === 'state' ? target.state.stripeSubscriptionId : target.subscriptionId
  const customerId = target.kind === 'state' ? target.state.stripeCustomerId : target.customerId
  const existing = rows.find((row) => row.stripe_subscription_id === subscriptionId)
  const eventAt = event.created * 1000
  const versionAt = existing?.version_at.getTime()

  if (versionAt !== undefined && eventAt < versionAt) return settle('stale', userId)
  // An event that only names the subscription tells nothing new once it is stored: every change
  // of its state comes with an event of its own, which carries (or re-fetches) that state.
  if (target.kind === 'reference' && existing !== undefined) return settle('unchanged', userId)
  if (
    target.kind === 'state' &&
    existing !== undefined &&
    eventAt === versionAt &&
    differences(stateOfRow(existing), target.state).length === 0
  ) {
    // Same second and the same state: whichever of the two is newer, the row is right as it is,
    // so Stripe is not asked (a purchase's checkout.session.completed re-fetches; the
    // customer.subscription.created of that second then agrees with it). Every later change
    // comes with its own event. Only trusted on rows read under the customer lock: the first
    // read may predate a same-second writer the lock waited for.
    return current ? settle('unchanged', userId) : 'moved'
  }
  let next: SubscriptionState
  let fetched = false
  if (target.kind === 'state' && (versionAt === undefined || eventAt > versionAt)) {
    next = target.state
  } else {
    // Same second as the stored state (Stripe's clock has one-second steps: only Stripe knows
    // which is newer), or a subscription not stored yet that the event only names: ask Stripe.
    let subscription: Stripe.Subscription
    try {
      subscription = await deps.stripe.subscriptions.retrieve(subscriptionId)
    } catch (error) {
      if (!isStripeMissing(error)) throw error
      deps.logger.error('stripe webhook: the subscription does not exist at Stripe', {
        eventId: event.id,
        subscriptionId,
      })
      return settle('invalid', userId)
    }
    const parsed = stripeSubscriptionSchema.safeParse(subscription)
    if (!parsed.success || customerIdOf(parsed.data.customer) !== customerId) {
      deps.logger.error('stripe webhook: the fetched subscription is not understood', {
        eventId: event.id,
        subscriptionId,
      })
      return settle('invalid', userId)
    }
    next = await checkedState(deps, tx, event, stateOf(parsed.data))
    fetched = true
  }

  const changed = existing === undefined || differences(stateOfRow(existing), next).length > 0
  const outcome = changed ? (fetched ? 'refetched' : 'applied') : 'unchanged'
  // The row and the ledger's note in one statement (the round trips are the cost here).
  const saved = await saveSubscriptionForEvent(
    tx,
    userId,
    next,
    new Date(Math.max(eventAt, versionAt ?? 0)),
    { id: event.id, outcome },
    existing?.version_at ?? null,
  )
  if (!saved) return 'moved'
  const states = rows.map(stateOfRow)
  const after = [...states.filter((s) => s.stripeSubscriptionId !== subscriptionId), next]
  const teams = changed ? [existing?.workspace_id ?? null, next.workspaceId] : []
  return {
    outcome,
    change: {
      userId,
      before: personalSubscription(states),
      after: personalSubscription(after),
      workspaceIds: [...new Set(teams.filter((id) => id !== null))],
    },
  }
}
