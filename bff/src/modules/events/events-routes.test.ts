import { LIVE_EVENT_NAME, liveEventSchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createEventHub, createLiveEvent } from './event-hub.ts'
import type { EventHub } from './event-hub.ts'
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
