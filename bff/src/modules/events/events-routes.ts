import {
  AUTH_EVENT_TYPE,
  LIVE_EVENT_NAME,
  RESYNC_EVENT_TYPE,
  authEventDataSchema,
} from '@tessera/contracts'
import type { LiveEvent } from '@tessera/contracts'
import { Hono } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from './event-hub.ts'
import type { EventHub, HubMessage, Topic } from './event-hub.ts'
import type { EventLog } from './event-outbox.ts'
import { eventStream } from '../../platform/sse.ts'

export interface EventsDeps {
  hub: EventHub
  clock: Clock
  logger: Logger
  heartbeatMs: number
  /**
   * The outbox (event-outbox.ts): with it, each event carries its outbox id as the SSE `id`, and
   * a reconnecting tab's `Last-Event-ID` replays what it missed. Without it (tests of the hub
   * alone) the SSE id is the event's own id and nothing is replayed.
   */
  log?: EventLog
}

/** The position a reconnecting EventSource sends (header), or a client passes (query). */
function lastEventIdOf(header: string | undefined, query: string | undefined): string | null {
  const value = (header ?? query ?? '').trim()
  return value === '' ? null : value
}

/** How soon EventSource reconnects after the stream drops (ms). */
const RECONNECT_MS = 2000

/** Whether an event signs this stream's session out (it then ends, and reconnects signed out). */
function signsOut(event: LiveEvent, sessionId: string): boolean {
  if (event.type !== AUTH_EVENT_TYPE) return false
  const data = authEventDataSchema.safeParse(event.data)
  return (
    data.success &&
    data.data.event === 'SIGNED_OUT' &&
    (data.data.sessionId === null || data.data.sessionId === sessionId)
  )
}

/**
 * `GET /api/events`: live platform events over SSE (`tessera` events, `ping` heartbeats). A
 * signed-in request also hears its user's events.
 */
export function eventsRoutes(deps: EventsDeps) {
  const { hub, clock, logger, log } = deps
  return new Hono<AppEnv>().get('/', async (c) => {
    // A HEAD has no body to stream into; without this it would hold a subscription forever.
    if (c.req.method === 'HEAD') {
      return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    }
    const requestId = c.get('requestId')
    const session = await c.var.auth.current()
    const topics: Topic[] =
      session === null ? ['broadcast'] : ['broadcast', userTopic(session.userId)]
    const connectionId = crypto.randomUUID()
    const lastEventId = lastEventIdOf(c.req.header('last-event-id'), c.req.query('lastEventId'))
    return eventStream(
      c,
      async (stream) => {
        let ended = false
        // After SIGNED_OUT the stream delivers what it has queued, then ends.
        let signedOut = false
        let wake: (() => void) | null = null
        const end = (): void => {
          ended = true
          wake?.()
        }
        stream.onAbort(end)
        const stopping = () => ended || signedOut || stream.aborted

        // With the outbox, the newest outbox id this stream has sent: events at or below it are
        // not sent again (a replayed event the relay delivers later), and events without one
        // (connection.opened) carry it, so the browser's Last-Event-ID is always a position.
        let sent = 0
        const send = async (
          event: LiveEvent,
          options: { retry?: number; seq?: number } = {},
        ): Promise<void> => {
          if (ended || stream.aborted) return
          if (log !== undefined && options.seq !== undefined) {
            if (options.seq <= sent) return
            sent = options.seq
          }
          await stream.send({
            event: LIVE_EVENT_NAME,
            id: log === undefined ? event.id : String(sent),
            data: JSON.stringify(event),
            ...(options.retry === undefined ? {} : { retry: options.retry }),
          })
        }
        // Deliveries run one after another, in order; the stream waits for them before it ends.
        let delivered: Promise<void> = Promise.resolve()
        const deliver = (message: HubMessage): void => {
          const { event } = message
          delivered = delivered
            .then(() => send(event, message.seq === undefined ? {} : { seq: message.seq }))
            .catch((error: unknown) => {
              logger.warn('live event not delivered', { error, connectionId, requestId })
            })
        }
        // Events published while connection.opened is being written wait, so it always comes first.
        let early: HubMessage[] | null = []
        // The position, read in the same turn as the subscription: every event the relay delivers
        // from here on is above it.
        sent = log?.position() ?? 0
        const unsubscribe = hub.subscribe({
          topics,
          onEvent: (event, message) => {
            if (early === null) deliver(message)
            else early.push(message)
            // The session's tabs hear its SIGNED_OUT, then nothing more of that user's.
            if (session !== null && signsOut(event, session.id)) {
              signedOut = true
              wake?.()
            }
          },
          onClose: end,
        })
        try {
          // Subscribed first, then the replay is read: every event after the tab's position is in
          // the replay or arrives live (or both: `sent` drops the second copy).
          let replay: HubMessage[] | null = []
          if (log !== undefined && lastEventId !== null) {
            const after = /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : -1
            replay = await log.since(after, topics).catch((error: unknown) => {
              // The database is away: the page re-reads once it can, rather than keep a gap.
              logger.warn('live events not replayed', { error, connectionId, requestId })
              return null
            })
            // The tab has everything up to `after`, whichever replica it came from.
            if (replay !== null) sent = after
          }
          await send(createLiveEvent('connection.opened', { connectionId }, clock), {
            retry: RECONNECT_MS,
          })
          if (replay === null) {
            // Too old or unknown: the page re-reads what it shows instead.
            await send(createLiveEvent(RESYNC_EVENT_TYPE, { lastEventId }, clock))
          } else {
            for (const message of replay) {
              deliver(message)
              if (session !== null && signsOut(message.event, session.id)) signedOut = true
            }
          }
          const waiting = early
          early = null
          waiting.forEach(deliver)
          while (!stopping()) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, deps.heartbeatMs)
              wake = () => {
                clearTimeout(timer)
                resolve()
              }
            })
            wake = null
            if (stopping()) break
            await stream.send({ event: 'ping', data: '' })
          }
          await delivered
        } finally {
          unsubscribe()
        }
      },
      (error) => logger.error('event stream failed', { error, connectionId, requestId }),
    )
  })
}
