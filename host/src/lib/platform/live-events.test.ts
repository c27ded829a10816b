import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { LiveEvent, LiveEventStatus } from '@tessera/contracts'
import { createLiveEvents, type EventSourceLike } from './live-events.ts'

class FakeEventSource implements EventSourceLike {
  readyState = 0
  onopen: ((event: Event) => void) | null = null
  onerror: ((event: Event) => void) | null = null
  closed = false
  private readonly listeners = new Map<string, Array<(event: MessageEvent<string>) => void>>()

  constructor(readonly url: string) {}

  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
  }
  close(): void {
    this.closed = true
    this.readyState = 2
  }
  open(): void {
    this.readyState = 1
    this.onopen?.(new Event('open'))
  }
  emit(type: string, data: string, lastEventId = ''): void {
    for (const listener of this.listeners.get(type) ?? [])
      listener(new MessageEvent(type, { data, lastEventId }))
  }
  fail(readyState: 0 | 2): void {
    this.readyState = readyState
    this.onerror?.(new Event('error'))
  }
}

function setup(options: { startFrom?: Promise<string | null> } = {}) {
  const sources: FakeEventSource[] = []
  const warnings: string[] = []
  const events = createLiveEvents({
    ...options,
    url: '/api/events',
    createEventSource: (url) => {
      const source = new FakeEventSource(url)
      sources.push(source)
      return source
    },
    initialDelayMs: 1000,
    maxDelayMs: 4000,
    replayTypes: ['connection.opened'],
    warn: (message) => warnings.push(message),
  })
  return { events, sources, warnings }
}

const event = (type: string, data: unknown = {}): string =>
  JSON.stringify({ id: `e-${type}`, type, at: '2025-01-01T00:00:00.000Z', data })

describe('createLiveEvents', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('opens one stream for the page however many subscribe', () => {
    const { events, sources } = setup()
    events.subscribe('a', () => undefined)
    events.subscribe('b', () => undefined)
    events.connect()
    expect(sources.map((s) => s.url)).toEqual(['/api/events'])
  })

  it('delivers tessera events by type and to * listeners', () => {
    const { events, sources } = setup()
    const byType: LiveEvent[] = []
    const all: string[] = []
    events.subscribe('billing.plan_changed', (e) => byType.push(e))
    events.subscribe('*', (e) => all.push(e.type))
    sources[0]?.emit('tessera', event('billing.plan_changed', { plan: 'pro' }))
    sources[0]?.emit('tessera', event('connection.opened'))
    sources[0]?.emit('ping', '')
    expect(byType).toEqual([
      {
        id: 'e-billing.plan_changed',
        type: 'billing.plan_changed',
        at: '2025-01-01T00:00:00.000Z',
        data: { plan: 'pro' },
      },
    ])
    expect(all).toEqual(['billing.plan_changed', 'connection.opened'])
  })

  it('ignores events that are not JSON or not in the contract, with a warning', () => {
    const { events, sources, warnings } = setup()
    const seen: string[] = []
    events.subscribe('*', (e) => seen.push(e.type))
    sources[0]?.emit('tessera', 'not json')
    sources[0]?.emit('tessera', JSON.stringify({ type: 'x' }))
    expect(seen).toEqual([])
    expect(warnings).toHaveLength(2)
  })

  it('keeps delivering to other listeners when one throws', () => {
    const { events, sources } = setup()
    const seen: string[] = []
    events.subscribe('*', () => {
      throw new Error('plugin bug')
    })
    events.subscribe('*', (e) => seen.push(e.type))
    sources[0]?.emit('tessera', event('x'))
    expect(seen).toEqual(['x'])
  })

  it('hands the latest connection event to a subscriber that came later, and nothing else', async () => {
    const { events, sources } = setup()
    events.subscribe('*', () => undefined)
    sources[0]?.emit('tessera', event('connection.opened', { connectionId: 'c1' }))
    sources[0]?.emit('tessera', event('billing.plan_changed'))
    const late: LiveEvent[] = []
    const typed: string[] = []
    events.subscribe('*', (e) => late.push(e))
    events.subscribe('billing.plan_changed', (e) => typed.push(e.type))
    expect(late).toEqual([])
    await Promise.resolve()
    expect(late.map((e) => [e.type, e.data])).toEqual([
      ['connection.opened', { connectionId: 'c1' }],
    ])
    expect(typed).toEqual([])
  })

  it('does not replay to a subscriber that left at once', async () => {
    const { events, sources } = setup()
    events.subscribe('*', () => undefined)
    sources[0]?.emit('tessera', event('connection.opened'))
    const late: string[] = []
    const unsubscribe = events.subscribe('connection.opened', (e) => late.push(e.type))
    unsubscribe()
    await Promise.resolve()
    expect(late).toEqual([])
  })

  it('stops delivering after unsubscribe', () => {
    const { events, sources } = setup()
    const seen: string[] = []
    const unsubscribe = events.subscribe('*', (e) => seen.push(e.type))
    unsubscribe()
    sources[0]?.emit('tessera', event('x'))
    expect(seen).toEqual([])
  })

  it('reports connecting, open and reconnecting', () => {
    const { events, sources } = setup()
    const statuses: LiveEventStatus[] = []
    events.onStatus((status) => statuses.push(status))
    events.connect()
    expect(events.status()).toBe('connecting')
    sources[0]?.open()
    sources[0]?.fail(0)
    sources[0]?.open()
    expect(statuses).toEqual(['open', 'reconnecting', 'open'])
  })

  it('opens a new stream with growing pauses when the browser gives up on one', async () => {
    const { events, sources } = setup()
    events.connect()
    sources[0]?.fail(2)
    expect(sources[0]?.closed).toBe(true)
    await vi.advanceTimersByTimeAsync(999)
    expect(sources).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(sources).toHaveLength(2)
    sources[1]?.fail(2)
    await vi.advanceTimersByTimeAsync(1999)
    expect(sources).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(sources).toHaveLength(3)
    // A successful open resets the pause.
    sources[2]?.open()
    sources[2]?.fail(2)
    await vi.advanceTimersByTimeAsync(1000)
    expect(sources).toHaveLength(4)
    expect(events.status()).toBe('reconnecting')
  })

  it('resumes a new stream from the last event heard, so the BFF replays what was missed', async () => {
    const { events, sources } = setup()
    events.connect()
    expect(sources[0]?.url).toBe('/api/events')
    sources[0]?.emit('tessera', event('connection.opened'), '41')
    sources[0]?.emit('tessera', event('billing.plan_changed'), '42')
    sources[0]?.fail(2)
    await vi.advanceTimersByTimeAsync(1000)
    expect(sources[1]?.url).toBe('/api/events?lastEventId=42')
    events.reconnect()
    expect(sources[2]?.url).toBe('/api/events?lastEventId=42')
  })

  it('opens the first stream from where the session was read, once that read is done', async () => {
    let read: (position: string | null) => void = () => undefined
    const { events, sources } = setup({ startFrom: new Promise((resolve) => (read = resolve)) })
    events.subscribe('a', () => undefined)
    events.connect()
    events.reconnect()
    await vi.advanceTimersByTimeAsync(100)
    expect(sources).toHaveLength(0)
    expect(events.status()).toBe('connecting')
    read('17')
    await vi.advanceTimersByTimeAsync(0)
    // One stream, which the BFF replays from 17: what was published while it was not open.
    expect(sources.map((s) => s.url)).toEqual(['/api/events?lastEventId=17'])
    sources[0]?.emit('tessera', event('billing.plan_changed'), '18')
    sources[0]?.fail(2)
    await vi.advanceTimersByTimeAsync(1000)
    expect(sources[1]?.url).toBe('/api/events?lastEventId=18')
  })

  it('opens the first stream without a position when the BFF gave none, or none in time', async () => {
    const none = setup({ startFrom: Promise.resolve(null) })
    none.events.connect()
    await vi.advanceTimersByTimeAsync(0)
    expect(none.sources.map((s) => s.url)).toEqual(['/api/events'])

    const garbled = setup({ startFrom: Promise.resolve('12; DROP') })
    garbled.events.connect()
    await vi.advanceTimersByTimeAsync(0)
    expect(garbled.sources.map((s) => s.url)).toEqual(['/api/events'])

    const never = setup({ startFrom: new Promise(() => undefined) })
    never.events.connect()
    await vi.advanceTimersByTimeAsync(4999)
    expect(never.sources).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(never.sources.map((s) => s.url)).toEqual(['/api/events'])
  })

  it('opens nothing once closed while it waited for the position', async () => {
    let read: (position: string | null) => void = () => undefined
    const { events, sources } = setup({ startFrom: new Promise((resolve) => (read = resolve)) })
    events.connect()
    events.close()
    read('3')
    await vi.advanceTimersByTimeAsync(10_000)
    expect(sources).toHaveLength(0)
  })

  it('does not reconnect after close', async () => {
    const { events, sources } = setup()
    events.connect()
    sources[0]?.fail(2)
    events.close()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(sources).toHaveLength(1)
  })

  it('replaces the stream at once on reconnect, keeping every subscriber', () => {
    const { events, sources } = setup()
    const seen: string[] = []
    events.subscribe('auth', (received) => seen.push(received.type))
    sources[0]?.open()
    events.reconnect()
    expect(sources[0]?.closed).toBe(true)
    expect(sources).toHaveLength(2)
    // The old stream's late deliveries are not listened to any more.
    sources[0]?.emit('tessera', event('auth'))
    sources[1]?.emit('tessera', event('auth'))
    expect(seen).toEqual(['auth'])
  })

  it('cancels a pending retry on reconnect instead of opening two streams', async () => {
    const { events, sources } = setup()
    events.connect()
    sources[0]?.fail(2)
    events.reconnect()
    expect(sources).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(sources).toHaveLength(2)
  })

  it('does not open a stream on reconnect before anybody connected', () => {
    const { events, sources } = setup()
    events.reconnect()
    expect(sources).toHaveLength(0)
  })
})
