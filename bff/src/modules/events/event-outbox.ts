/**
 * Live events through PostgreSQL (docs/decisions/018). Publishing writes a row of `live_events`
 * and NOTIFYs `tessera_events` in the caller's transaction (the one that writes the change), so
 * the event exists exactly when the change does. Every replica's relay LISTENs, reads the rows
 * after the last one it delivered, in id order, and publishes them on its own hub; the same rows
 * let a reconnecting tab replay what it missed (`EventLog`).
 */
import { liveEventSchema } from '@tessera/contracts'
import type { Sql, SqlListener, SqlQueryable } from '@tessera/db/sql'
import type { Logger } from '../../platform/logger.ts'
import type { EventHub, HubMessage, Topic } from './event-hub.ts'

/** The NOTIFY channel the outbox function wakes replicas on. */
export const EVENTS_CHANNEL = 'tessera_events'

/** How events leave a request: through the outbox, or (tests without a database) the hub. */
export interface EventBus {
  /**
   * Publishes `message` to every replica. With `tx`, the event is written in that transaction and
   * exists only if it commits; without, in a statement of its own.
   */
  publish(message: HubMessage, tx?: SqlQueryable): Promise<void>
}

/** What `GET /api/events` needs to resume a stream: where the relay is, and the rows after it. */
export interface EventLog {
  /** The id of the newest event this replica's hub has delivered (0: none yet). */
  position(): number
  /**
   * The events for `topics` with an id above `after`, in order; null when `after` is not a
   * position this log can resume from (older than the retention window, or unknown).
   */
  since(after: number, topics: readonly Topic[]): Promise<HubMessage[] | null>
}

export interface EventRelay extends EventLog {
  /** Whether the LISTEN is in place now (false while it is being re-established). */
  listening(): boolean
  /** Reads and delivers every row after the position now (also called on NOTIFY and by a timer). */
  catchUp(): Promise<void>
  /** Deletes rows older than the retention window (a bounded batch); returns how many. */
  sweep(): Promise<number>
  close(): Promise<void>
}

/** The hub alone: for in-process tests without a database (and no other replica to reach). */
export function createLocalBus(hub: EventHub): EventBus {
  return {
    publish(message) {
      hub.publish(message)
      return Promise.resolve()
    },
  }
}

/** Writes events to the outbox (`tessera_private.publish_live_event`). */
export function createOutboxBus(sql: Sql): EventBus {
  return {
    async publish(message, tx) {
      await (tx ?? sql).query('select tessera_private.publish_live_event($1, $2::jsonb)', [
        message.topic,
        JSON.stringify(message.event),
      ])
    },
  }
}

interface EventRow {
  id: string | number
  topic: string
  event: unknown
}

const pageSize = 500

export interface EventRelayOptions {
  sql: Sql
  hub: EventHub
  logger: Logger
  /** How long rows are kept for reconnecting tabs (ms). */
  retentionMs: number
  /** The safety net: how often the table is read without a notification (ms). */
  pollMs?: number
  /** How often this replica deletes rows past the retention window (ms). */
  sweepEveryMs?: number
}

function toMessage(row: EventRow): HubMessage | null {
  const event = liveEventSchema.safeParse(row.event)
  if (!event.success) return null
  return { topic: row.topic as Topic, event: event.data, seq: Number(row.id) }
}

/**
 * Starts this replica's relay: LISTENs (the listen connection is re-established when it drops,
 * and the gap is read from the table), polls as a safety net and sweeps old rows. It starts at
 * the newest row: what happened before this replica started is only for replays.
 */
export async function startEventRelay(options: EventRelayOptions): Promise<EventRelay> {
  const { sql, hub, logger } = options
  const retentionSeconds = options.retentionMs / 1000
  const top = await sql.query<{ top: number }>(
    'select coalesce(max(id), 0)::int8::float8 as top from public.live_events',
  )
  let position = Number(top.rows[0]?.top ?? 0)
  let closed = false

  // One reader at a time. A request while one runs makes it read once more when it is done; a
  // notification only if the read did not reach the id it names (a burst of notifications that
  // one read covers costs that one read).
  let reading: Promise<void> | null = null
  let again = false
  let wanted = 0
  const readOnce = async (): Promise<void> => {
    for (;;) {
      const { rows } = await sql.query<EventRow>(
        'select id, topic, event from public.live_events where id > $1 order by id limit $2',
        [position, pageSize],
      )
      for (const row of rows) {
        const message = toMessage(row)
        position = Number(row.id)
        if (message === null) {
          logger.error('live event row not understood', { id: row.id })
          continue
        }
        hub.publish(message)
      }
      if (rows.length < pageSize || closed) return
    }
  }
  /** Reads what is new; with `upTo` (a notified id), only if the position is below it. */
  const read = (upTo?: number): Promise<void> => {
    if (closed) return Promise.resolve()
    if (upTo === undefined) again = true
    else if (upTo > position) wanted = Math.max(wanted, upTo)
    else return reading ?? Promise.resolve()
    if (reading !== null) return reading
    reading = (async () => {
      try {
        while ((again || wanted > position) && !closed) {
          again = false
          await readOnce()
        }
      } finally {
        reading = null
      }
    })()
    return reading
  }
  const catchUp = (): Promise<void> => read()
  const readLogged = (why: string, upTo?: number): void => {
    read(upTo).catch((error: unknown) => {
      if (!closed) logger.warn('live events not read', { error, why })
    })
  }
  const catchUpLogged = (why: string): void => readLogged(why)

  // Whether it has listened once (a later onListening is a reconnection), and is now.
  let listening = false
  let connected = false
  const listener: SqlListener = await sql.listen(
    EVENTS_CHANNEL,
    (payload) => {
      // The payload names the id; anything at or below the position has been delivered already.
      const named = JSON.parse(payload) as { id?: unknown; topic?: unknown }
      const id = Number(named.id)
      // A payload without a usable id (never from publish_live_event) still wakes a full read.
      if (!Number.isSafeInteger(id)) return catchUpLogged('notify')
      // Nobody here hears its topic, and every earlier row is read or was skipped the same way
      // (ids commit in order, and notifications arrive in commit order): the relay moves past it
      // without reading it. A row that was read for nobody here would be delivered to nobody.
      const idle = reading === null && !again && wanted <= position
      if (idle && typeof named.topic === 'string' && !hub.wants(named.topic as Topic)) {
        position = Math.max(position, id)
        return
      }
      readLogged('notify', id)
    },
    {
      onListening: () => {
        // After a reconnection, the rows committed while nobody listened.
        if (listening) {
          logger.info('live events listener reconnected')
          catchUpLogged('reconnected')
        }
        listening = true
        connected = true
      },
      onDropped: () => {
        connected = false
        // Notifications were lost meanwhile: the next one reads everything after the position.
        again = true
        logger.warn('live events listener dropped; reconnecting')
      },
      onError: (error) => logger.warn('live events listener reconnecting', { error }),
    },
  )

  const sweep = async (): Promise<number> => {
    // Deletes a prefix of ids only (never a row above one that stays), in a bounded batch, and
    // always keeps the newest row: the oldest row left tells where replays can start.
    const { rowCount } = await sql.query(
      `delete from public.live_events where id in (
         select id from public.live_events
         where id < coalesce(
           (select min(id) from public.live_events
             where created_at >= clock_timestamp() - make_interval(secs => $1)),
           (select max(id) from public.live_events))
         order by id limit 1000)`,
      [retentionSeconds],
    )
    return rowCount
  }

  const timers = [
    setInterval(() => catchUpLogged('poll'), options.pollMs ?? 3000),
    setInterval(() => {
      sweep().catch((error: unknown) => {
        if (!closed) logger.warn('live events not swept', { error })
      })
    }, options.sweepEveryMs ?? 60_000),
  ]
  // The relay must never keep a process alive on its own.
  for (const timer of timers) timer.unref?.()

  return {
    listening: () => connected && !closed,
    position: () => position,
    async since(after, topics) {
      if (!Number.isSafeInteger(after) || after < 0) return null
      const bounds = await sql.query<{ floor: number | null; top: number | null }>(
        'select min(id)::float8 as floor, max(id)::float8 as top from public.live_events',
      )
      const floor = bounds.rows[0]?.floor ?? null
      const top = bounds.rows[0]?.top ?? null
      // Rows between `after` and the oldest kept one may have been swept: too old to resume.
      if (floor !== null && after < floor - 1) return null
      // An id this database never handed out (another database, a reset one).
      if (after > Math.max(top ?? 0, position)) return null
      const { rows } = await sql.query<EventRow>(
        `select id, topic, event from public.live_events
         where id > $1 and topic = any(string_to_array($2, ',')) order by id`,
        [after, topics.join(',')],
      )
      return rows.flatMap((row) => toMessage(row) ?? [])
    },
    catchUp,
    sweep,
    async close() {
      closed = true
      for (const timer of timers) clearInterval(timer)
      await listener.close()
      await reading?.catch(() => undefined)
    },
  }
}
