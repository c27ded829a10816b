import type { LiveEvent } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { createEventHub, createLiveEvent } from './event-hub.ts'

const clock = createManualClock()

describe('createEventHub', () => {
  it('delivers a broadcast to every broadcast subscriber and a user event only to that user', () => {
    const hub = createEventHub()
    const all: LiveEvent[] = []
    const ada: LiveEvent[] = []
    hub.subscribe({ topics: ['broadcast'], onEvent: (event) => all.push(event) })
    hub.subscribe({ topics: ['broadcast', 'user:ada'], onEvent: (event) => ada.push(event) })
    const news = createLiveEvent('news', {}, clock)
    const plan = createLiveEvent('plan.changed', { plan: 'pro' }, clock)
    expect(hub.publish({ topic: 'broadcast', event: news })).toBe(2)
    expect(hub.publish({ topic: 'user:ada', event: plan })).toBe(1)
    expect(hub.publish({ topic: 'user:bob', event: plan })).toBe(0)
    expect(all).toEqual([news])
    expect(ada).toEqual([news, plan])
  })

  it('stops delivering once a subscription ends', () => {
    const hub = createEventHub()
    const seen: LiveEvent[] = []
    const stop = hub.subscribe({ topics: ['broadcast'], onEvent: (event) => seen.push(event) })
    stop()
    hub.publish({ topic: 'broadcast', event: createLiveEvent('x', null, clock) })
    expect(seen).toEqual([])
    expect(hub.subscriberCount()).toBe(0)
  })

  it('knows which topics someone hears, until the last subscription to each ends', () => {
    const hub = createEventHub()
    const first = hub.subscribe({ topics: ['user:ada', 'user:ada'], onEvent: () => undefined })
    const second = hub.subscribe({ topics: ['user:ada', 'internal'], onEvent: () => undefined })
    expect(hub.wants('user:ada')).toBe(true)
    expect(hub.wants('internal')).toBe(true)
    expect(hub.wants('user:bob')).toBe(false)
    first()
    first()
    expect(hub.wants('user:ada')).toBe(true)
    second()
    expect(hub.wants('user:ada')).toBe(false)
    expect(hub.wants('internal')).toBe(false)
  })

  it('keeps delivering to others when one listener throws, and reports the failure', () => {
    const failures: unknown[] = []
    const hub = createEventHub({ onListenerError: (error) => failures.push(error) })
    const seen: string[] = []
    hub.subscribe({
      topics: ['broadcast'],
      onEvent: () => {
        throw new Error('broken listener')
      },
    })
    hub.subscribe({ topics: ['broadcast'], onEvent: (event) => seen.push(event.type) })
    expect(hub.publish({ topic: 'broadcast', event: createLiveEvent('x', null, clock) })).toBe(1)
    expect(seen).toEqual(['x'])
    expect(failures).toHaveLength(1)
  })

  it('closes every subscription on close, and closes later ones at once', () => {
    const hub = createEventHub()
    let closed = 0
    hub.subscribe({ topics: ['broadcast'], onEvent: () => undefined, onClose: () => (closed += 1) })
    hub.close()
    expect(closed).toBe(1)
    expect(hub.subscriberCount()).toBe(0)
    hub.subscribe({ topics: ['broadcast'], onEvent: () => undefined, onClose: () => (closed += 1) })
    expect(closed).toBe(2)
    expect(hub.subscriberCount()).toBe(0)
  })
})

describe('createLiveEvent', () => {
  it('stamps a fresh id and the clock’s time', () => {
    const first = createLiveEvent('a', { n: 1 }, clock)
    const second = createLiveEvent('a', { n: 1 }, clock)
    expect(first.at).toBe('2026-01-01T00:00:00.000Z')
    expect(first.id).not.toBe(second.id)
    expect(first).toMatchObject({ type: 'a', data: { n: 1 } })
  })
})
