import { LIVE_EVENT_NAME } from '@tessera/contracts'
import type { LiveEvent } from '@tessera/contracts'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { AppEnv } from '../app-env.ts'
import type { Clock } from '../clock.ts'
import type { Logger } from '../logger.ts'
import { createLiveEvent } from '../services/event-hub.ts'
import type { EventHub } from '../services/event-hub.ts'

export interface EventsDeps {
  hub: EventHub
  clock: Clock
  logger: Logger
  heartbeatMs: number
}

/** How soon EventSource reconnects after the stream drops (ms). */
const RECONNECT_MS = 2000

/** `GET /api/events`: live platform events over SSE (`tessera` events, `ping` heartbeats). */
export function eventsRoutes(deps: EventsDeps) {
  const { hub, clock, logger } = deps
  return new Hono<AppEnv>().get('/', (c) => {
    // A HEAD has no body to stream into; without this it would hold a subscription forever.
    if (c.req.method === 'HEAD') {
      return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    }
    const requestId = c.get('requestId')
    return streamSSE(c, async (stream) => {
      let ended = false
      let wake: (() => void) | null = null
      const end = (): void => {
        ended = true
        wake?.()
      }
      stream.onAbort(end)

      const send = async (event: LiveEvent, retry?: number): Promise<void> => {
        if (ended || stream.aborted) return
        await stream.writeSSE({
          event: LIVE_EVENT_NAME,
          id: event.id,
          data: JSON.stringify(event),
          retry,
        })
      }
      const connectionId = crypto.randomUUID()
      const deliver = (event: LiveEvent): void => {
        send(event).catch((error: unknown) => {
          logger.warn('live event not delivered', { error, connectionId, requestId })
        })
      }
      // Events published while connection.opened is being written wait, so it always comes first.
      let early: LiveEvent[] | null = []
      // The identity issue adds `user:<id>` here once requests carry a session.
      const unsubscribe = hub.subscribe({
        topics: ['broadcast'],
        onEvent: (event) => (early === null ? deliver(event) : early.push(event)),
        onClose: end,
      })
      try {
        await send(createLiveEvent('connection.opened', { connectionId }, clock), RECONNECT_MS)
        const waiting = early
        early = null
        waiting.forEach(deliver)
        while (!ended && !stream.aborted) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, deps.heartbeatMs)
            wake = () => {
              clearTimeout(timer)
              resolve()
            }
          })
          wake = null
          if (ended || stream.aborted) break
          await stream.writeSSE({ event: 'ping', data: '' })
        }
      } catch (error) {
        // Caught here rather than by streamSSE's onError, which would send the message as text.
        logger.error('event stream failed', { error, connectionId, requestId })
      } finally {
        unsubscribe()
      }
    })
  })
}
