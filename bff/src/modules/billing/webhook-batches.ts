// Stripe's deliveries applied in batches (docs/decisions/035): a group commit. Deliveries that
// arrive while a batch is in flight wait for it and are then applied together, in one transaction
// on one connection whose statements travel pipelined, and answered once that commits. A delivery
// that arrives when none is in flight starts one at once, so a lone delivery waits for nothing.
//
// What a delivery alone guarantees still holds: the ledger row comes first and a redelivery stops
// there (in one batch, the second insert of an event finds the first's row; the deliveries that
// are only recorded share one multi-row insert, which inserts an id once), the customer's row is
// locked, and the deliveries of one customer (or of one event) run one after the other in arrival
// order, each deciding on the rows the one before it left. Deliveries of different customers run
// side by side, their statements interleaved on the connection. If anything in a batch fails,
// the batch is rolled back and each of its deliveries is applied in a transaction of its own, as
// before batches: one that fails again is answered with its own error, the others are applied.
import type { SqlQueryable } from '@tessera/db/sql'
import type Stripe from 'stripe'
import {
  applyPreparedAlone,
  applyPreparedEvent,
  noteWebhookOutcome,
  orderKeyOf,
  prepareWebhookEvent,
} from './webhooks.ts'
import { recordEvents } from './ledger.ts'
import type { EventEnvelope, PreparedEvent, WebhookDeps, WebhookResult } from './webhooks.ts'

type Applicable = Exclude<PreparedEvent, { kind: 'answered' }>
type Recorded = { waiting: Waiting; prepared: Extract<PreparedEvent, { kind: 'record' }> }

interface Waiting {
  prepared: Applicable
  resolve: (result: WebhookResult) => void
  reject: (error: unknown) => void
}

/** What a batch was, for tests and the debug log. */
export interface BatchReport {
  size: number
  /** Whether it failed and its deliveries were applied one by one. */
  alone: boolean
}

export interface WebhookBatcherOptions {
  /** The most deliveries in one batch; the rest wait for the next. */
  maxBatch?: number
  /** The most batches in flight at once, each in a transaction of its own. */
  maxInFlight?: number
  /** Called after each batch is answered. */
  onBatch?: (report: BatchReport) => void
}

export interface WebhookBatcher {
  /** Applies a verified event; resolves once its effect is committed (or it is answered). */
  apply(event: Stripe.Event | EventEnvelope): Promise<WebhookResult>
  /** Resolves once no batch is in flight or waiting. */
  settled(): Promise<void>
}

const DEFAULT_MAX_BATCH = 64
const DEFAULT_MAX_IN_FLIGHT = 1

export function createWebhookBatcher(
  deps: WebhookDeps,
  options: WebhookBatcherOptions = {},
): WebhookBatcher {
  const maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH)
  const maxInFlight = Math.max(1, options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT)
  const queue: Waiting[] = []
  const running = new Set<Promise<void>>()

  const answer = (waiting: Waiting, result: WebhookResult): void => {
    noteWebhookOutcome(deps.logger, waiting.prepared, result)
    waiting.resolve(result)
  }

  /** Each delivery in a transaction of its own (a batch of one, or a failed batch's). */
  const alone = (batch: Waiting[]): Promise<unknown> =>
    Promise.all(
      batch.map((waiting) =>
        applyPreparedAlone(deps, waiting.prepared).then(waiting.resolve, waiting.reject),
      ),
    )

  const together = async (batch: Waiting[]): Promise<boolean> => {
    // Deliveries with effects: arrival order within a key, the keys side by side. Those that are
    // only recorded (most of them: `invoice.*`, `customer.created`) go in one statement.
    const records: Recorded[] = []
    const chains = new Map<string, Waiting[]>()
    for (const waiting of batch) {
      const { prepared } = waiting
      if (prepared.kind === 'record') {
        records.push({ waiting, prepared })
        continue
      }
      const key = orderKeyOf(prepared)
      const chain = chains.get(key)
      if (chain === undefined) chains.set(key, [waiting])
      else chain.push(waiting)
    }
    const results = new Map<Waiting, WebhookResult>()
    const runChain = async (tx: SqlQueryable, chain: Waiting[]): Promise<void> => {
      for (const waiting of chain)
        results.set(waiting, await applyPreparedEvent(deps, tx, waiting.prepared))
    }
    const recordAll = async (tx: SqlQueryable): Promise<void> => {
      if (records.length === 0) return
      const inserted = await recordEvents(
        tx,
        records.map(({ prepared: { event, outcome } }) => ({ ...event, outcome })),
      )
      // The first delivery of an inserted id (in arrival order) is the one recorded.
      for (const { waiting, prepared } of records) {
        const first = inserted.delete(prepared.event.id)
        results.set(waiting, { outcome: first ? prepared.outcome : 'duplicate', change: null })
      }
    }
    try {
      await deps.sql.transaction(async (tx) => {
        const settled = await Promise.allSettled([
          recordAll(tx),
          ...[...chains.values()].map((c) => runChain(tx, c)),
        ])
        const failed = settled.find((outcome) => outcome.status === 'rejected')
        // Every chain has finished with the connection before the rollback is sent.
        if (failed !== undefined) throw failed.reason
      })
    } catch (error) {
      deps.logger.warn('stripe webhook: a batch failed; its deliveries are applied one by one', {
        size: batch.length,
        error,
      })
      return false
    }
    for (const waiting of batch) answer(waiting, results.get(waiting)!)
    return true
  }

  const run = async (batch: Waiting[]): Promise<void> => {
    let applied = false
    if (batch.length > 1) applied = await together(batch)
    if (!applied) await alone(batch)
    try {
      options.onBatch?.({ size: batch.length, alone: batch.length > 1 && !applied })
    } catch (error) {
      deps.logger.warn('stripe webhook: the batch observer threw', { error })
    }
  }

  const kick = (): void => {
    while (running.size < maxInFlight && queue.length > 0) {
      const batch = run(queue.splice(0, maxBatch)).finally(() => {
        running.delete(batch)
        kick()
      })
      running.add(batch)
    }
  }

  return {
    apply(event) {
      const prepared = prepareWebhookEvent(deps.logger, event)
      if (prepared.kind === 'answered') return Promise.resolve(prepared.result)
      return new Promise<WebhookResult>((resolve, reject) => {
        queue.push({ prepared, resolve, reject })
        kick()
      })
    },
    async settled() {
      while (running.size > 0) await Promise.all(running)
    },
  }
}

/**
 * Runs `steps` in order: started together when `pipelined` (statements on one transaction's
 * connection are sent in the order made and run in that order), else each after the last.
 */
export async function inOrder(
  steps: (() => Promise<unknown>)[],
  pipelined: boolean,
): Promise<void> {
  if (pipelined) {
    await Promise.all(steps.map((step) => step()))
    return
  }
  for (const step of steps) await step()
}
