// Reconcile: walks every customer and subscription at Stripe, compares them with the stored
// rows, and repairs what drifted (a lost webhook, a row deleted by hand, a bug). A repair is a
// compare-and-set under the customer's lock: a row a webhook wrote after the snapshot was read
// is left alone, so reconcile never undoes newer state, and no Stripe call holds a lock.
import type { ReconcileReport } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type Stripe from 'stripe'
import { z } from 'zod/mini'
import { execute, queries } from '../../platform/db/query.ts'
import type { BillingSubscriptionRow } from '../../platform/db/schema.ts'
import {
  allCustomers,
  allSubscriptions,
  deleteSubscription,
  lockCustomerByStripeId,
  saveSubscription,
  subscriptionsOfUser,
} from './store.ts'
import { isStripeMissing } from './stripe-client.ts'
import { setSeatQuantity } from './seats.ts'
import { resolveWorkspace, seatTargets, seatsFor } from './team-store.ts'
import {
  differences,
  personalSubscription,
  stateOf,
  stateOfRow,
  stripeSubscriptionSchema,
} from './subscription-state.ts'
import type { SubscriptionState } from './subscription-state.ts'
import type { BillingChange } from './webhooks.ts'

/** One finding (contracts/src/billing.ts lists the kinds). */
export type Drift = ReconcileReport['drift'][number]
export type { ReconcileReport }

export interface ReconcileDeps {
  sql: Sql
  /** The background client: SDK defaults, nobody is waiting. */
  stripe: Stripe
  now?: () => number
}

const userIdSchema = z.uuid()

const show = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString()
      : String(value)

const fieldValue = (state: SubscriptionState, field: string): unknown =>
  ({
    plan: state.plan,
    status: state.status,
    price: state.stripePriceId,
    quantity: state.quantity,
    workspace: state.workspaceId,
    currentPeriodEnd: state.currentPeriodEnd,
    cancelAt: state.cancelAt,
    canceledAt: state.canceledAt,
    customer: state.stripeCustomerId,
  })[field]

/**
 * Re-syncs every subscription from Stripe. Returns the drift found (and whether each was
 * fixed) and the users whose current subscription changed, for the caller to tell.
 */
export async function reconcileBilling(
  deps: ReconcileDeps,
  options: { dryRun?: boolean } = {},
): Promise<{ report: ReconcileReport; changes: BillingChange[] }> {
  const { sql, stripe } = deps
  const now = deps.now ?? Date.now
  const dryRun = options.dryRun ?? false
  const startedAt = new Date(now()).toISOString()
  const drift: Drift[] = []
  const changes: BillingChange[] = []

  // Stripe's newest event before anything is fetched: every state fetched below is at least
  // that new, so it becomes the repaired rows' version marker (older events stay stale).
  const newestEvent = (await stripe.events.list({ limit: 1 })).data[0]

  // Customers: ours carry metadata.user_id.
  const rows = await allCustomers(sql)
  const userOfCustomer = new Map<string, string>()
  const customerOfUser = new Map<string, string>()
  for (const row of rows) {
    if (row.stripe_customer_id === null) continue
    userOfCustomer.set(row.stripe_customer_id, row.user_id)
    customerOfUser.set(row.user_id, row.stripe_customer_id)
  }
  let customersAtStripe = 0
  for await (const customer of stripe.customers.list({ limit: 100 })) {
    customersAtStripe += 1
    if (userOfCustomer.has(customer.id)) continue
    const userId = userIdSchema.safeParse(customer.metadata?.user_id)
    if (!userId.success) continue
    const known = customerOfUser.get(userId.data)
    if (known !== undefined) {
      drift.push({
        kind: 'duplicate_customer',
        customerId: customer.id,
        userId: userId.data,
        fixed: false,
      })
      continue
    }
    const fixed = dryRun ? false : await insertCustomer(sql, userId.data, customer.id)
    if (fixed || dryRun) {
      userOfCustomer.set(customer.id, userId.data)
      customerOfUser.set(userId.data, customer.id)
    }
    drift.push({
      kind: 'missing_customer_row',
      customerId: customer.id,
      userId: userId.data,
      fixed,
    })
  }

  // Subscriptions: every one Stripe has, whatever its status.
  const stored = new Map<string, BillingSubscriptionRow>(
    (await allSubscriptions(sql)).map((row) => [row.stripe_subscription_id, row]),
  )
  const seen = new Set<string>()
  let subscriptionsAtStripe = 0
  for await (const listed of stripe.subscriptions.list({ status: 'all', limit: 100 })) {
    subscriptionsAtStripe += 1
    seen.add(listed.id)
    const parsed = stripeSubscriptionSchema.safeParse(listed)
    if (!parsed.success) continue
    // A metadata workspace that does not exist is stored as none (as webhooks do).
    const { state } = await resolveWorkspace(sql, stateOf(parsed.data))
    const userId = userOfCustomer.get(state.stripeCustomerId)
    if (userId === undefined) {
      drift.push({
        kind: 'unknown_customer',
        customerId: state.stripeCustomerId,
        subscriptionId: listed.id,
        fixed: false,
      })
      continue
    }
    const row = stored.get(listed.id)
    const fields = row === undefined ? [] : differences(stateOfRow(row), state)
    if (row !== undefined && fields.length === 0) continue
    const item: Drift = {
      kind: row === undefined ? 'missing_subscription_row' : 'subscription_mismatch',
      customerId: state.stripeCustomerId,
      subscriptionId: listed.id,
      userId,
      ...(row === undefined
        ? {}
        : {
            fields: fields.map((field) => ({
              field,
              stored: show(fieldValue(stateOfRow(row), field)),
              stripe: show(fieldValue(state, field)),
            })),
          }),
      fixed: false,
    }
    drift.push(item)
    if (dryRun) continue
    const change = await repairSubscription(deps, state, row, newestEvent?.created ?? 0)
    item.fixed = change !== null
    if (change !== null) changes.push(change)
  }

  // Rows for subscriptions Stripe does not have: they mirror nothing, so they go.
  for (const row of stored.values()) {
    if (seen.has(row.stripe_subscription_id)) continue
    const item: Drift = {
      kind: 'not_at_stripe',
      customerId: row.stripe_customer_id,
      subscriptionId: row.stripe_subscription_id,
      userId: row.user_id,
      fixed: false,
    }
    drift.push(item)
    if (dryRun) continue
    const change = await removeIfMissing(deps, row)
    item.fixed = change !== null
    if (change !== null) changes.push(change)
  }

  await reconcileSeats(deps, { dryRun, startedAt, drift })

  return {
    report: {
      dryRun,
      customersAtStripe,
      subscriptionsAtStripe,
      rowsChecked: stored.size,
      drift,
      fixed: drift.filter((item) => item.fixed).length,
      startedAt,
      finishedAt: new Date(now()).toISOString(),
    },
    changes,
  }
}

/** Stores a customer row; false when its user no longer exists (or has a row by now). */
async function insertCustomer(sql: Sql, userId: string, customerId: string): Promise<boolean> {
  try {
    const { rows } = await execute(
      queries
        .insertInto('billing_customers')
        .values({ user_id: userId, stripe_customer_id: customerId })
        .onConflict((conflict) => conflict.doNothing())
        .returning('user_id'),
      sql,
    )
    return rows.length > 0
  } catch (error) {
    // 23503: the user was deleted; their customer stays unmatched.
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === '23503')
      return false
    throw error
  }
}

/** Whether the row is as the snapshot saw it: no webhook (or other run) wrote it since. */
const unchangedSince = (
  row: BillingSubscriptionRow | undefined,
  snapshot: BillingSubscriptionRow | undefined,
): boolean =>
  row === undefined || snapshot === undefined
    ? row === snapshot
    : row.synced_at.getTime() === snapshot.synced_at.getTime()

/**
 * Stores the listed state under the customer's lock, unless a webhook wrote the row after the
 * snapshot was read: its state is at least as new as the list, so it stays (compare and set).
 */
async function repairSubscription(
  deps: ReconcileDeps,
  state: SubscriptionState,
  snapshot: BillingSubscriptionRow | undefined,
  horizon: number,
): Promise<BillingChange | null> {
  return deps.sql.transaction(async (tx) => {
    const customer = await lockCustomerByStripeId(tx, state.stripeCustomerId)
    if (customer === null) return null
    const rows = await subscriptionsOfUser(tx, customer.user_id)
    const existing = rows.find((row) => row.stripe_subscription_id === state.stripeSubscriptionId)
    if (!unchangedSince(existing, snapshot)) return null
    const versionAt = Math.max(existing?.version_at.getTime() ?? 0, horizon * 1000)
    await saveSubscription(tx, customer.user_id, state, new Date(versionAt))
    const states = rows.map(stateOfRow)
    return {
      userId: customer.user_id,
      before: personalSubscription(states),
      after: personalSubscription([
        ...states.filter((s) => s.stripeSubscriptionId !== state.stripeSubscriptionId),
        state,
      ]),
      workspaceIds: teamsOf([existing?.workspace_id ?? null, state.workspaceId]),
    }
  })
}

/** Deletes a row whose subscription Stripe answers 404 for (asked again, to be sure). */
async function removeIfMissing(
  deps: ReconcileDeps,
  snapshot: BillingSubscriptionRow,
): Promise<BillingChange | null> {
  try {
    await deps.stripe.subscriptions.retrieve(snapshot.stripe_subscription_id)
    // It exists after all (created after the list was read): the next run looks again.
    return null
  } catch (error) {
    if (!isStripeMissing(error)) throw error
  }
  return deps.sql.transaction(async (tx) => {
    await lockCustomerByStripeId(tx, snapshot.stripe_customer_id)
    const rows = await subscriptionsOfUser(tx, snapshot.user_id)
    const existing = rows.find(
      (row) => row.stripe_subscription_id === snapshot.stripe_subscription_id,
    )
    if (existing === undefined || !unchangedSince(existing, snapshot)) return null
    await deleteSubscription(tx, snapshot.stripe_subscription_id)
    const states = rows.map(stateOfRow)
    return {
      userId: snapshot.user_id,
      before: personalSubscription(states),
      after: personalSubscription(
        states.filter((state) => state.stripeSubscriptionId !== snapshot.stripe_subscription_id),
      ),
      workspaceIds: teamsOf([existing.workspace_id]),
    }
  })
}

const teamsOf = (ids: (string | null)[]): string[] => [
  ...new Set(ids.filter((id): id is string => id !== null)),
]

/**
 * Seats that differ from the member count (a seat change that failed every retry, one made by
 * hand at Stripe, members who came and went while Stripe was down): set to max(members, the
 * plan's minimum) at Stripe. The webhook that follows stores the new quantity; a run in the
 * same minute reuses the key, so two runs never apply it twice.
 */
async function reconcileSeats(
  deps: ReconcileDeps,
  run: { dryRun: boolean; startedAt: string; drift: Drift[] },
): Promise<void> {
  const minute = run.startedAt.slice(0, 16)
  for (const target of await seatTargets(deps.sql)) {
    const seats = seatsFor(target.members)
    if (target.quantity === seats) continue
    const item: Drift = {
      kind: 'seat_mismatch',
      customerId: target.customerId,
      subscriptionId: target.subscriptionId,
      userId: target.userId,
      workspaceId: target.workspaceId,
      seats: { quantity: target.quantity, members: target.members, target: seats },
      fixed: false,
    }
    run.drift.push(item)
    if (run.dryRun) continue
    try {
      await setSeatQuantity(
        deps.stripe,
        target.subscriptionId,
        seats,
        `tessera-seats-${target.subscriptionId}-${seats}-reconcile-${minute}`,
      )
      item.fixed = true
    } catch (error) {
      item.error = error instanceof Error ? error.message : String(error)
    }
  }
}
