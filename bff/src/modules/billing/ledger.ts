// The ledger of Stripe events (`billing_events`): one row per event id, the unique key that makes
// a redelivery a no-op, written in the same transaction as the event's effects.
import type { SqlQueryable } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import type { QueryCreator } from 'kysely'
import { queries } from '../../platform/db/query.ts'
import type { BillingEventOutcome, Database } from '../../platform/db/schema.ts'
import { reusableStatement } from '../../platform/db/reusable-statement.ts'

/** The event's ledger row; an event delivered again inserts nothing (and returns no id). */
export function ledgerInsert(
  db: QueryCreator<Database>,
  values: {
    eventId: string
    type: string
    createdAt: Date
    objectId: string | null
    outcome: BillingEventOutcome
  },
) {
  return db
    .insertInto('billing_events')
    .values({
      id: values.eventId,
      type: values.type,
      stripe_created_at: values.createdAt,
      object_id: values.objectId,
      outcome: values.outcome,
    })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
}

/**
 * Records an event in the ledger; false when it is there already (a redelivery). A concurrent
 * delivery of the same event waits on the unique key until the first one commits or rolls back.
 */
export async function recordEvent(
  tx: SqlQueryable,
  event: { id: string; type: string; created: number },
  objectId: string | null,
  outcome: BillingEventOutcome,
): Promise<boolean> {
  const { rows } = await recordStatement(tx, {
    eventId: event.id,
    type: event.type,
    createdAt: new Date(event.created * 1000),
    objectId,
    outcome,
  })
  return rows.length > 0
}

/**
 * Records events that have no effect to apply (`ignored`, `invalid`) in one statement, a batch's
 * worth at once: the ids it inserted. An id already in the ledger, or listed twice, is inserted
 * once and otherwise left out (a redelivery).
 */
export async function recordEvents(
  tx: SqlQueryable,
  events: readonly { id: string; type: string; created: number; outcome: BillingEventOutcome }[],
): Promise<Set<string>> {
  const { rows } = await tx.query<{ id: string }>(recordEventsStatement, [
    JSON.stringify(
      events.map(({ id, type, created, outcome }) => ({ id, type, created, outcome })),
    ),
  ])
  return new Set(rows.map((row) => row.id))
}

// The rows of `ledgerInsert`, many at once: Kysely has no `jsonb_to_recordset` (console/traffic.ts
// writes its batch the same way).
const recordEventsStatement = `insert into public.billing_events (id, type, stripe_created_at, outcome)
  select e.id, e.type, to_timestamp(e.created), e.outcome
  from jsonb_to_recordset($1::jsonb) as e(id text, type text, created bigint, outcome text)
  on conflict (id) do nothing
  returning id`

const recordStatement = reusableStatement(
  (values: {
    eventId: string
    type: string
    createdAt: Date
    objectId: string | null
    outcome: BillingEventOutcome
  }) => ledgerInsert(queries, values),
)

/** Notes what an event recorded as `received` did, in the same transaction as its effects. */
export async function settleEvent(
  tx: SqlQueryable,
  eventId: string,
  outcome: BillingEventOutcome,
  userId: string | null,
  applied: boolean,
): Promise<void> {
  await (applied ? settleApplied : settleNotApplied)(tx, { eventId, outcome, userId })
}

function settleStatement(applied: boolean) {
  return reusableStatement(
    (values: { eventId: string; outcome: BillingEventOutcome; userId: string | null }) =>
      queries
        .updateTable('billing_events')
        .set({
          outcome: values.outcome,
          user_id: values.userId,
          ...(applied ? { applied_at: raw<Date>`now()` } : {}),
        })
        .where('id', '=', values.eventId),
  )
}

const settleApplied = settleStatement(true)
const settleNotApplied = settleStatement(false)
