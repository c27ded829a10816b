import { LIVE_EVENT_NAME, liveEventSchema } from '@tessera/contracts'
import { Hono } from 'hono'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AppEnv, RequestAuth } from '../../http/app-env.ts'
import { createLogger } from '../../platform/logger.ts'
import { createEventHub, createLiveEvent } from './event-hub.ts'
import type { EventHub } from './event-hub.ts'
import type { EventLog } from './event-outbox.ts'
import { eventsRoutes } from './events-routes.ts'
import { createManualClock, createTestApp, sseReader, waitFor } from '../../testing/app.ts'

function openStream(heartbeatMs = '60000') {
  const context = createTestApp({ env: { SSE_HEARTBEAT_MS: heartbeatMs } })
  return { ...context, response: context.app.request('/api/events') }
}

describe('GET /api/events', () => {
  it('opens with a connection.opened event and asks EventSource to reconnect within 2 s', async () => {
    const { response, hub } = openStream()
    const res = await response
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const stream = sseReader(res)
    const opened = await stream.next((frame) => frame.event === LIVE_EVENT_NAME)
    const event = liveEventSchema.parse(JSON.parse(opened.data))
    expect(event).toMatchObject({
      type: 'connection.opened',
      at: '2026-01-01T00:00:00.000Z',
      data: { connectionId: expect.any(String) as string },
    })
    expect(opened.id).toBe(event.id)
    expect(opened.retry).toBe('2000')
    await stream.cancel()
    await waitFor(() => (hub.subscriberCount() === 0 ? true : undefined), {
      what: 'the subscription to end',
    })
  })

  it('forwards an event published on the hub to the stream', async () => {
    const { response, hub, clock } = openStream()
    const stream = sseReader(await response)
    await stream.next((frame) => frame.data.includes('connection.opened'))
    const published = createLiveEvent('plan.changed', { plan: 'pro' }, clock)
    expect(hub.publish({ topic: 'broadcast', event: published })).toBe(1)
    const frame = await stream.next((candidate) => candidate.data.includes('plan.changed'))
    expect(frame.event).toBe(LIVE_EVENT_NAME)
    expect(JSON.parse(frame.data)).toEqual(published)
    await stream.cancel()
  })

  it('sends connection.opened first even when an event arrives while it is being written', async () => {
    const inner = createEventHub()
    const clock = createManualClock()
    // A hub that delivers an event the moment the stream subscribes, before opened is written.
    const hub: EventHub = {
      ...inner,
      subscribe(subscription) {
        const stop = inner.subscribe(subscription)
        const early = createLiveEvent('early', {}, clock)
        subscription.onEvent(early, { topic: 'broadcast', event: early })
        return stop
      },
    }
    const { app } = createTestApp({ deps: { hub, clock } })
    const stream = sseReader(await app.request('/api/events'))
    await stream.next((frame) => frame.data.includes('"early"'))
    expect(stream.frames.map((frame) => (JSON.parse(frame.data) as { type: string }).type)).toEqual(
      ['connection.opened', 'early'],
    )
    await stream.cancel()
  })

  it('does not forward another user’s events', async () => {
    const { response, hub, clock } = openStream()
    const stream = sseReader(await response)
    await stream.next((frame) => frame.data.includes('connection.opened'))
    hub.publish({ topic: 'user:someone-else', event: createLiveEvent('private', {}, clock) })
    hub.publish({ topic: 'broadcast', event: createLiveEvent('public', {}, clock) })
    await stream.next((frame) => frame.data.includes('"public"'))
    expect(stream.frames.some((frame) => frame.data.includes('"private"'))).toBe(false)
    await stream.cancel()
  })

  it('sends ping heartbeats every SSE_HEARTBEAT_MS', async () => {
    const { response } = openStream('20')
    const stream = sseReader(await response)
    const pings = () => stream.frames.filter((frame) => frame.event === 'ping')
    // Two pings prove the heartbeat repeats rather than firing once.
    await stream.next(() => pings().length >= 2)
    expect(stream.frames[0]?.event).toBe(LIVE_EVENT_NAME)
    await stream.cancel()
  })

  it('ends the stream when the hub closes (graceful shutdown)', async () => {
    const { response, hub } = openStream()
    const stream = sseReader(await response)
    await stream.next((frame) => frame.data.includes('connection.opened'))
    hub.close()
    await stream.closed()
    expect(stream.ended()).toBe(true)
  })

  it('answers HEAD without holding a subscription', async () => {
    const { app, hub } = createTestApp()
    const response = await app.request('/api/events', { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(hub.subscriberCount()).toBe(0)
  })
})

/** The events route alone, signed out, over a log that has nothing to replay (the outbox's part). */
function routeWithLog(options: { maxBacklog?: number } = {}) {
  const hub = createEventHub()
  const clock = createManualClock()
  const logs: Record<string, unknown>[] = []
  const logger = createLogger({
    level: 'debug',
    write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
  })
  let position = 0
  const log: EventLog = { position: () => position, since: () => Promise.resolve([]) }
  const auth = { current: () => Promise.resolve(null) } as unknown as RequestAuth
  const app = new Hono<AppEnv>()
    .use(async (c, next) => {
      c.set('requestId', 'test')
      c.set('auth', auth)
      await next()
    })
    .route('/', eventsRoutes({ hub, clock, logger, heartbeatMs: 60_000, log, ...options }))
  const publish = (seq: number) => {
    position = seq
    return hub.publish({
      topic: 'broadcast',
      event: createLiveEvent('numbered', { seq }, clock),
      seq,
    })
  }
  return { app, hub, logs, publish }
}

/** Reads a response body chunk by chunk, as the connection takes it. */
function chunks(response: Response) {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  return {
    async next(): Promise<string | null> {
      const { done, value } = await reader.read()
      return done ? null : decoder.decode(value)
    },
    cancel: () => reader.cancel(),
  }
}

describe('GET /api/events, fanning out', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('serialises a hub event once, however many streams it goes to', async () => {
    const { app, hub, publish } = routeWithLog()
    const readers = await Promise.all([1, 2, 3].map(async () => sseReader(await app.request('/'))))
    for (const reader of readers) await reader.next((frame) => frame.data.includes('opened'))
    const stringify = vi.spyOn(JSON, 'stringify')
    expect(publish(1)).toBe(3)
    const frames = await Promise.all(
      readers.map((reader) => reader.next((frame) => frame.data.includes('numbered'))),
    )
    const ofEvent = stringify.mock.calls.filter(
      ([value]) => (value as { type?: string } | null)?.type === 'numbered',
    )
    expect(ofEvent).toHaveLength(1)
    for (const frame of frames) expect(frame).toEqual(frames[0])
    expect(frames[0]!.id).toBe('1')
    for (const reader of readers) await reader.cancel()
    expect(hub.subscriberCount()).toBe(0)
  })

  it('writes the events of one turn (one read of the relay) in one chunk, in order, once each', async () => {
    const { app, hub, publish } = routeWithLog()
    const stream = chunks(await app.request('/'))
    expect(await stream.next()).toContain('connection.opened')
    publish(1)
    publish(2)
    // Delivered again by a replay that overlapped the live events: dropped by id.
    hub.publish({
      topic: 'broadcast',
      event: createLiveEvent('numbered', { seq: 1 }, createManualClock()),
      seq: 1,
    })
    publish(3)
    const chunk = (await stream.next())!
    expect([...chunk.matchAll(/^id: (\d+)$/gm)].map((match) => match[1])).toEqual(['1', '2', '3'])
    await stream.cancel()
  })

  it('ends a stream whose reader falls behind, which then resumes from its Last-Event-ID', async () => {
    const { app, logs, publish } = routeWithLog({ maxBacklog: 3 })
    const stream = chunks(await app.request('/'))
    expect(await stream.next()).toContain('connection.opened')
    // Nothing reads for a while: every event waits in the stream's queue.
    for (let seq = 1; seq <= 10; seq += 1) {
      publish(seq)
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    const received: string[] = []
    for (let chunk = await stream.next(); chunk !== null; chunk = await stream.next())
      received.push(chunk)
    const ids = received.flatMap((chunk) => [...chunk.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]))
    // What was queued is still delivered, in order; then the stream ends instead of holding more.
    expect(ids).toEqual(['1', '2', '3', '4'])
    expect(logs.some((line) => line.msg === 'live event stream fell behind; ending it')).toBe(true)
  })
})
