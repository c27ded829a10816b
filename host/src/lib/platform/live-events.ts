import {
  LIVE_EVENT_NAME,
  liveEventSchema,
  type LiveEvent,
  type LiveEventStatus,
  type PlatformEvents,
} from '@tessera/contracts'
import { browserTimers, warnToConsole, type Timers } from '../runtime.ts'

/** The slice of `EventSource` the live stream uses, so tests can hand in a fake. */
export interface EventSourceLike {
  readonly readyState: number
  onopen: ((event: Event) => void) | null
  onerror: ((event: Event) => void) | null
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void
  close(): void
}

export type EventSourceFactory = (url: string) => EventSourceLike

export interface LiveEventsOptions {
  url: string
  createEventSource?: EventSourceFactory
  timers?: Timers
  /** First pause before reconnecting after the stream was closed; doubles up to `maxDelayMs`. */
  initialDelayMs?: number
  maxDelayMs?: number
  /**
   * Event types that describe the current state of the connection rather than something that
   * happened (`connection.opened`): the latest one is handed to each later subscriber too, so a
   * plugin mounted after the stream opened still learns what it would otherwise have missed.
   */
  replayTypes?: readonly string[]
  /**
   * Where to open the first stream from: the position the page's session read was made at
   * (`Tessera-Events-Position`, null when the BFF sent none). The first stream waits for it, up
   * to `startWaitMs`, and then replays every event published since that read, including those
   * published before the stream opened.
   */
  startFrom?: Promise<string | null>
  startWaitMs?: number
  warn?: (message: string, detail?: unknown) => void
}

export interface LiveEvents extends PlatformEvents {
  /** Opens the stream now, not at the first subscription (with `startFrom`: once it is in). */
  connect(): void
  /**
   * Replaces an open (or reconnecting) stream with a new one at once. The BFF picks a stream's
   * topics from the session cookie when it connects, so a tab that signs in must reconnect to
   * hear its user's events. Does nothing before the first connection.
   */
  reconnect(): void
  close(): void
}

const CLOSED = 2

/** `url` with `lastEventId` set in its query (relative URLs stay relative). */
function withLastEventId(url: string, lastEventId: string): string {
  const [path = '', query = ''] = url.split('?', 2)
  const params = new URLSearchParams(query)
  params.set('lastEventId', lastEventId)
  return `${path}?${params.toString()}`
}

/**
 * One `EventSource` for the whole page, shared by the host and every plugin. The browser retries a
 * dropped connection by itself, but gives up for good when the server answers with an error
 * status; then we open a new one after a growing pause, so a BFF restart heals without a reload.
 */
export function createLiveEvents({
  url,
  createEventSource = (target) => new EventSource(target),
  timers = browserTimers,
  initialDelayMs = 1000,
  maxDelayMs = 30_000,
  replayTypes = [],
  startFrom,
  startWaitMs = 5000,
  warn = warnToConsole,
}: LiveEventsOptions): LiveEvents {
  const latest = new Map<string, LiveEvent>()
  const listeners = new Map<string, Set<(event: LiveEvent) => void>>()
  const statusListeners = new Set<(status: LiveEventStatus) => void>()
  let status: LiveEventStatus = 'connecting'
  let source: EventSourceLike | null = null
  let reconnectTimer: unknown = null
  let delayMs = initialDelayMs
  let closed = false
  // The position of the last event heard (the SSE id): a new EventSource does not carry the old
  // one's Last-Event-ID, so it is sent as `lastEventId` and the BFF replays what was missed.
  let lastEventId = ''

  function setStatus(next: LiveEventStatus): void {
    if (next === status) return
    status = next
    for (const listener of [...statusListeners]) listener(next)
  }

  function deliver(listener: (event: LiveEvent) => void, event: LiveEvent): void {
    try {
      listener(event)
    } catch (error) {
      // One plugin's faulty listener must not keep the event from the others.
      warn(`A listener for live event "${event.type}" threw`, error)
    }
  }

  function dispatch(event: LiveEvent): void {
    if (replayTypes.includes(event.type)) latest.set(event.type, event)
    const targets = [...(listeners.get(event.type) ?? []), ...(listeners.get('*') ?? [])]
    for (const listener of targets) deliver(listener, event)
  }

  function onMessage(message: MessageEvent<string>): void {
    if (message.lastEventId) lastEventId = message.lastEventId
    let data: unknown
    try {
      data = JSON.parse(message.data)
    } catch (error) {
      warn('A live event was not JSON; it was ignored', error)
      return
    }
    const parsed = liveEventSchema.safeParse(data)
    if (!parsed.success) {
      warn('A live event did not match the contract; it was ignored', parsed.error.issues)
      return
    }
    dispatch(parsed.data)
  }

  function scheduleReconnect(): void {
    if (reconnectTimer !== null || closed) return
    const wait = delayMs
    delayMs = Math.min(delayMs * 2, maxDelayMs)
    reconnectTimer = timers.setTimeout(() => {
      reconnectTimer = null
      open()
    }, wait)
  }

  function open(): void {
    if (closed) return
    const next = createEventSource(lastEventId === '' ? url : withLastEventId(url, lastEventId))
    source = next
    next.onopen = () => {
      if (source !== next) return
      delayMs = initialDelayMs
      setStatus('open')
    }
    next.onerror = () => {
      if (source !== next) return
      setStatus('reconnecting')
      if (next.readyState === CLOSED) {
        next.close()
        source = null
        scheduleReconnect()
      }
    }
    next.addEventListener(LIVE_EVENT_NAME, (message) => {
      // A replaced stream may still flush what it had buffered; only the current one speaks.
      if (source === next) onMessage(message)
    })
  }

  // The first stream waits for the position it starts from (`startFrom`), once.
  let start: 'waiting' | 'ready' | null = startFrom === undefined ? 'ready' : null

  function connect(): void {
    if (source !== null || reconnectTimer !== null || closed) return
    if (start === 'ready') return open()
    if (start === 'waiting') return
    start = 'waiting'
    let cap: unknown = null
    const begin = (position: string | null): void => {
      if (start === 'ready') return
      start = 'ready'
      if (cap !== null) timers.clearTimeout(cap)
      if (position !== null && /^\d{1,15}$/.test(position) && lastEventId === '')
        lastEventId = position
      connect()
    }
    cap = timers.setTimeout(() => begin(null), startWaitMs)
    startFrom?.then(begin, () => begin(null))
  }

  function reconnect(): void {
    if (closed || (source === null && reconnectTimer === null)) return
    if (reconnectTimer !== null) timers.clearTimeout(reconnectTimer)
    reconnectTimer = null
    source?.close()
    source = null
    delayMs = initialDelayMs
    open()
  }

  return {
    connect,
    reconnect,
    close() {
      closed = true
      if (reconnectTimer !== null) timers.clearTimeout(reconnectTimer)
      reconnectTimer = null
      source?.close()
      source = null
    },
    subscribe(type, listener) {
      connect()
      let set = listeners.get(type)
      if (!set) {
        set = new Set()
        listeners.set(type, set)
      }
      set.add(listener)
      const replay = [...latest.values()].filter((event) => type === '*' || event.type === type)
      if (replay.length > 0) {
        // After subscribe returns, as a live event would arrive, and only if still subscribed.
        queueMicrotask(() => {
          for (const event of replay)
            if (listeners.get(type)?.has(listener)) deliver(listener, event)
        })
      }
      return () => {
        listeners.get(type)?.delete(listener)
      }
    },
    status: () => status,
    onStatus(listener) {
      statusListeners.add(listener)
      return () => {
        statusListeners.delete(listener)
      }
    },
  }
}
