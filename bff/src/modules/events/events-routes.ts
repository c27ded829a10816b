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
import { encodeEvent, eventStream } from '../../platform/sse.ts'

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
  /** How far a stream's reader may fall behind before the stream ends (MAX_STREAM_BACKLOG). */
  maxBacklog?: number
}

/** The position a reconnecting EventSource sends (header), or a client passes (query). */
function lastEventIdOf(header: string | undefined, query: string | undefined): string | null {
  const value = (header ?? query ?? '').trim()
  return value === '' ? null : value
}

/** How soon EventSource reconnects after the stream drops (ms). */
const RECONNECT_MS = 2000

/**
 * How many writes may wait for a stream's connection before the stream is ended (with the
 * outbox: the tab reconnects and replays what it missed, rather than this process holding it).
 */
export const MAX_STREAM_BACKLOG = 1024

/**
 * A hub message in the wire format, made once however many streams it goes to: the hub hands every
 * subscriber the same message object. `position` is the stream's (with the outbox): an event
 * without an outbox id carries it, and is formatted for that stream alone.
 */
const frames = new WeakMap<HubMessage, Uint8Array>()
function frameOf(message: HubMessage, position: number | undefined): Uint8Array {
  const shared = position === undefined || message.seq !== undefined
  const cached = shared ? frames.get(message) : undefined
  if (cached !== undefined) return cached
  const frame = encodeEvent({
    event: LIVE_EVENT_NAME,
    id: position === undefined ? message.event.id : String(message.seq ?? position),
    data: JSON.stringify(message.event),
  })
  if (shared) frames.set(message, frame)
  return frame
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(chunks.reduce((length, chunk) => length + chunk.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.length
  }
  return joined
}

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
  const maxBacklog = deps.maxBacklog ?? MAX_STREAM_BACKLOG
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
        /** Whether the event is new to this stream (with the outbox: above what it has sent). */
        const admit = (seq: number | undefined): boolean => {
          if (log === undefined || seq === undefined) return true
          if (seq <= sent) return false
          sent = seq
          return true
        }
        // Hub events are written as they come, in order, without waiting on the connection: each
        // is formatted once for every stream (frameOf), and those that arrive in the same turn
        // (one read of the relay) leave in one write. A reader that falls `maxBacklog` chunks
        // behind is ended: with the outbox it reconnects and replays from its Last-Event-ID.
        let pending: Uint8Array[] = []
        const flush = (): void => {
          if (pending.length === 0) return
          const chunks = pending
          pending = []
          if (ended || stream.aborted) return
          const backlog = stream.write(chunks.length === 1 ? chunks[0]! : concat(chunks))
          if (backlog > maxBacklog && log !== undefined) {
            logger.warn('live event stream fell behind; ending it', {
              connectionId,
              requestId,
              backlog,
            })
            end()
          }
        }
        const send = async (
          event: LiveEvent,
          options: { retry?: number; seq?: number } = {},
        ): Promise<void> => {
          if (ended || stream.aborted) return
          if (!admit(options.seq)) return
          flush()
          await stream.send({
            event: LIVE_EVENT_NAME,
            id: log === undefined ? event.id : String(sent),
            data: JSON.stringify(event),
            ...(options.retry === undefined ? {} : { retry: options.retry }),
          })
        }
        const deliver = (message: HubMessage): void => {
          if (ended || stream.aborted || !admit(message.seq)) return
          try {
            pending.push(frameOf(message, log === undefined ? undefined : sent))
          } catch (error) {
            logger.warn('live event not delivered', { error, connectionId, requestId })
            return
          }
          if (pending.length === 1) queueMicrotask(flush)
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
        } finally {
          unsubscribe()
          flush()
        }
      },
      (error) => logger.error('event stream failed', { error, connectionId, requestId }),
    )
  })
}
