import { AUTH_EVENT_TYPE, LIVE_EVENT_NAME, authEventDataSchema } from '@tessera/contracts'
import type { LiveEvent } from '@tessera/contracts'
import { Hono } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from './event-hub.ts'
import type { EventHub, Topic } from './event-hub.ts'
import { eventStream } from '../../platform/sse.ts'

export interface EventsDeps {
  hub: EventHub
  clock: Clock
  logger: Logger
  heartbeatMs: number
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
  const { hub, clock, logger } = deps
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

        const send = async (event: LiveEvent, retry?: number): Promise<void> => {
          if (ended || stream.aborted) return
          await stream.send({
            event: LIVE_EVENT_NAME,
            id: event.id,
            data: JSON.stringify(event),
            ...(retry === undefined ? {} : { retry }),
          })
        }
        // Deliveries run one after another, in order; the stream waits for them before it ends.
        let delivered: Promise<void> = Promise.resolve()
        const deliver = (event: LiveEvent): void => {
          delivered = delivered
            .then(() => send(event))
            .catch((error: unknown) => {
              logger.warn('live event not delivered', { error, connectionId, requestId })
            })
        }
        // Events published while connection.opened is being written wait, so it always comes first.
        let early: LiveEvent[] | null = []
        const unsubscribe = hub.subscribe({
          topics,
          onEvent: (event) => {
            if (early === null) deliver(event)
            else early.push(event)
            // The session's tabs hear its SIGNED_OUT, then nothing more of that user's.
            if (session !== null && signsOut(event, session.id)) {
              signedOut = true
              wake?.()
            }
          },
          onClose: end,
        })
        try {
          await send(createLiveEvent('connection.opened', { connectionId }, clock), RECONNECT_MS)
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
