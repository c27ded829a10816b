// The billing tables, read and written through the typed query builder. The BFF's own connection
// writes (RLS is for users' reads); every function runs on the database or an open transaction.
import type { SqlQueryable } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import { execute, queries } from '../../platform/db/query.ts'
import type {
  BillingCustomerRow,
  BillingEventOutcome,
  BillingSubscriptionRow,
} from '../../platform/db/schema.ts'
import { reusableStatement } from '../../platform/db/reusable-statement.ts'
import { ledgerInsert } from './ledger.ts'
import type { SubscriptionState } from './subscription-state.ts'

export async function customerOfUser(
  on: SqlQueryable,
  userId: string,
): Promise<BillingCustomerRow | null> {
  const { rows } = await execute(
    queries.selectFrom('billing_customers').selectAll().where('user_id', '=', userId),
    on,
  )
  return rows[0] ?? null
}

/** The customer row, locked until the transaction ends: one writer per customer at a time. */
export async function lockCustomerByStripeId(
  tx: SqlQueryable,
  stripeCustomerId: string,
): Promise<BillingCustomerRow | null> {
  const { rows } = await execute(
    queries
      .selectFrom('billing_customers')
      .selectAll()
      .where('stripe_customer_id', '=', stripeCustomerId)
      .forUpdate(),
    tx,
  )
  return rows[0] ?? null
}

const recordAndLockStatement = reusableStatement(
  (values: {
    eventId: string
    type: string
    createdAt: Date
    objectId: string
    stripeCustomerId: string
  }) =>
    queries
      .with('recorded', (db) => ledgerInsert(db, { ...values, outcome: 'received' }))
      .with('locked', (db) =>
        db
          .selectFrom('billing_customers')
          .select('user_id')
          .where('stripe_customer_id', '=', values.stripeCustomerId)
          .where((eb) => eb.exists(eb.selectFrom('recorded').select('recorded.id')))
          .forUpdate(),
      )
      .selectFrom('recorded')
      .leftJoin('locked', (join) => join.onTrue())
      .leftJoin('billing_subscriptions as s', 's.user_id', 'locked.user_id')
      .select(['recorded.id as recorded_id', 'locked.user_id as customer_user_id'])
      .selectAll('s'),
)

/**
 * Records an event in the ledger and, only when it was not there yet, locks its customer row
 * until the transaction ends and reads that user's subscriptions: one statement, a webhook's first
 * round trip. `recorded: false` is a redelivery (nothing locked); `customer: null` a customer we do
 * not know. The ledger insert runs before the lock (the lock's filter reads it), so two deliveries
 * of one event wait on the ledger's key alone and cannot deadlock on the customer row.
 *
 * The subscriptions are read with the statement's snapshot, which may predate a writer this
 * statement waited for on the lock: a save passes the version it read (`saveSubscriptionForEvent`)
 * and is refused if the row moved meanwhile, and the caller then reads again.
 */
export async function recordEventAndLockCustomer(
  tx: SqlQueryable,
  event: { id: string; type: string; created: number },
  objectId: string,
  stripeCustomerId: string,
): Promise<
  | { recorded: false }
  | {
      recorded: true
      customer: { userId: string; subscriptions: BillingSubscriptionRow[] } | null
    }
> {
  const { rows } = await recordAndLockStatement(tx, {
    eventId: event.id,
    type: event.type,
    createdAt: new Date(event.created * 1000),
    objectId,
    stripeCustomerId,
  })
  const first = rows[0]
  if (first === undefined) return { recorded: false }
  if (first.customer_user_id === null) return { recorded: true, customer: null }
  return {
    recorded: true,
    customer: {
      userId: first.customer_user_id,
      subscriptions: rows.flatMap((row) => {
        const { customer_user_id: _user, recorded_id: _event, ...subscription } = row
        // A customer without subscriptions comes back as one row of nulls from the left join.
        return subscription.stripe_subscription_id === null
          ? []
          : [subscription as BillingSubscriptionRow]
      }),
    },
  }
}

/** The user's customer row, created empty if need be, and locked until the transaction ends. */
export async function lockCustomerOfUser(
  tx: SqlQueryable,
  userId: string,
): Promise<BillingCustomerRow> {
  await execute(
    queries
      .insertInto('billing_customers')
      .values({ user_id: userId })
      .onConflict((conflict) => conflict.column('user_id').doNothing()),
    tx,
  )
  const { rows } = await execute(
    queries.selectFrom('billing_customers').selectAll().where('user_id', '=', userId).forUpdate(),
    tx,
  )
  const row = rows[0]
  if (row === undefined) throw new Error('The billing customer row was neither created nor found.')
  return row
}

export async function allCustomers(on: SqlQueryable): Promise<BillingCustomerRow[]> {
  return (await execute(queries.selectFrom('billing_customers').selectAll(), on)).rows
}

export async function subscriptionsOfUser(
  on: SqlQueryable,
  userId: string,
): Promise<BillingSubscriptionRow[]> {
  const { rows } = await execute(
    queries.selectFrom('billing_subscriptions').selectAll().where('user_id', '=', userId),
    on,
  )
  return rows
}

export async function allSubscriptions(on: SqlQueryable): Promise<BillingSubscriptionRow[]> {
  return (await execute(queries.selectFrom('billing_subscriptions').selectAll(), on)).rows
}

function upsertSubscription(userId: string, state: SubscriptionState, versionAt: Date) {
  const columns = {
    user_id: userId,
    stripe_customer_id: state.stripeCustomerId,
    plan: state.plan,
    stripe_price_id: state.stripePriceId,
    quantity: state.quantity,
    workspace_id: state.workspaceId,
    status: state.status,
    current_period_end: state.currentPeriodEnd,
    cancel_at: state.cancelAt,
    canceled_at: state.canceledAt,
    stripe_created_at: state.stripeCreatedAt,
    version_at: versionAt,
  }
  return queries
    .insertInto('billing_subscriptions')
    .values({ stripe_subscription_id: state.stripeSubscriptionId, ...columns })
    .onConflict((conflict) =>
      conflict.column('stripe_subscription_id').doUpdateSet({ ...columns, synced_at: raw`now()` }),
    )
}

/** Writes a subscription's state and version marker (insert or replace). */
export async function saveSubscription(
  tx: SqlQueryable,
  userId: string,
  state: SubscriptionState,
  versionAt: Date,
): Promise<void> {
  await execute(upsertSubscription(userId, state, versionAt), tx)
}

/**
 * Writes a subscription and notes the event that brought it as applied, in one statement (a
 * data-modifying CTE: both happen, in the caller's transaction, or neither). `readVersionAt` is
 * the version the decision was made on (null: no row): when the stored row is no longer that one,
 * nothing is written and false comes back (read again and decide again).
 */
export async function saveSubscriptionForEvent(
  tx: SqlQueryable,
  userId: string,
  state: SubscriptionState,
  versionAt: Date,
  event: { id: string; outcome: BillingEventOutcome },
  readVersionAt: Date | null,
): Promise<boolean> {
  const values = {
    stripeSubscriptionId: state.stripeSubscriptionId,
    userId,
    stripeCustomerId: state.stripeCustomerId,
    plan: state.plan,
    stripePriceId: state.stripePriceId,
    quantity: state.quantity,
    workspaceId: state.workspaceId,
    status: state.status,
    currentPeriodEnd: state.currentPeriodEnd,
    cancelAt: state.cancelAt,
    canceledAt: state.canceledAt,
    stripeCreatedAt: state.stripeCreatedAt,
    versionAt,
    eventId: event.id,
    outcome: event.outcome,
  }
  // Only a change is "applied"; rewriting the same state only moves the version marker.
  const applied = event.outcome !== 'unchanged'
  const { rowCount } =
    readVersionAt === null
      ? await (applied ? saveNewApplied : saveNewUnchanged)(tx, values)
      : await (applied ? saveReadApplied : saveReadUnchanged)(tx, { ...values, readVersionAt })
  return rowCount > 0
}

type SaveValues = {
  stripeSubscriptionId: string
  userId: string
  stripeCustomerId: string
  plan: SubscriptionState['plan']
  stripePriceId: string | null
  quantity: number
  workspaceId: string | null
  status: SubscriptionState['status']
  currentPeriodEnd: Date | null
  cancelAt: Date | null
  canceledAt: Date | null
  stripeCreatedAt: Date
  versionAt: Date
  eventId: string
  outcome: BillingEventOutcome
}

/**
 * The save's statement in one of its four shapes: whether a row was read (compare-and-set on its
 * version, or "no row yet") and whether the event counts as applied (`applied_at`).
 */
function saveStatement<V extends SaveValues>(
  readVersionAt: (values: V) => Date | null,
  applied: boolean,
) {
  return reusableStatement((values: V) => {
    const columns = {
      user_id: values.userId,
      stripe_customer_id: values.stripeCustomerId,
      plan: values.plan,
      stripe_price_id: values.stripePriceId,
      quantity: values.quantity,
      workspace_id: values.workspaceId,
      status: values.status,
      current_period_end: values.currentPeriodEnd,
      cancel_at: values.cancelAt,
      canceled_at: values.canceledAt,
      stripe_created_at: values.stripeCreatedAt,
      version_at: values.versionAt,
    }
    const read = readVersionAt(values)
    return queries
      .with('saved', (db) =>
        db
          .insertInto('billing_subscriptions')
          .values({ stripe_subscription_id: values.stripeSubscriptionId, ...columns })
          .onConflict((conflict) =>
            conflict
              .column('stripe_subscription_id')
              .doUpdateSet({ ...columns, synced_at: raw`now()` })
              // No row was read: any row found now is someone else's, so nothing is replaced.
              // (Milliseconds: the precision of the Date the version was read into.)
              .where(
                raw<Date>`date_trunc('milliseconds', billing_subscriptions.version_at)`,
                read === null ? 'is' : '=',
                read,
              ),
          )
          .returning('user_id'),
      )
      .updateTable('billing_events')
      .set({
        outcome: values.outcome,
        user_id: values.userId,
        ...(applied ? { applied_at: raw<Date>`now()` } : {}),
      })
      .where('id', '=', values.eventId)
      .where((eb) => eb.exists(eb.selectFrom('saved').select('saved.user_id')))
  })
}

const saveNewApplied = saveStatement<SaveValues>(() => null, true)
const saveNewUnchanged = saveStatement<SaveValues>(() => null, false)
const saveReadApplied = saveStatement<SaveValues & { readVersionAt: Date }>(
  (values) => values.readVersionAt,
  true,
)
const saveReadUnchanged = saveStatement<SaveValues & { readVersionAt: Date }>(
  (values) => values.readVersionAt,
  false,
)

export async function deleteSubscription(tx: SqlQueryable, id: string): Promise<void> {
  await execute(
    queries.deleteFrom('billing_subscriptions').where('stripe_subscription_id', '=', id),
    tx,
  )
}
