import type { LiveEvent } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'

/**
 * Who an event is for: every connection, the connections of one user, or the BFF replicas
 * themselves (`internal`: cache invalidations, never sent to a browser).
 */
export type Topic = 'broadcast' | 'internal' | `user:${string}`

export interface HubMessage {
  topic: Topic
  event: LiveEvent
  /** The outbox id (event-outbox.ts): the position a reconnecting tab resumes after. */
  seq?: number
}

export interface HubSubscription {
  topics: readonly Topic[]
  onEvent(event: LiveEvent, message: HubMessage): void
  /** Called once when the hub shuts down, so a stream can end cleanly. */
  onClose?(): void
}

/**
 * In-process fan-out behind `GET /api/events`. Between replicas, events travel through PostgreSQL
 * (event-outbox.ts): each replica's relay publishes the rows it reads here.
 */
export interface EventHub {
  /** Delivers to every subscriber of the topic; returns how many received it. */
  publish(message: HubMessage): number
  /** Returns the function that ends the subscription. */
  subscribe(subscription: HubSubscription): () => void
  subscriberCount(): number
  /** Whether any subscription here hears `topic` (the relay reads no row nobody here wants). */
  wants(topic: Topic): boolean
  /** Ends every subscription (graceful shutdown); later subscriptions are closed at once. */
  close(): void
}

export function createEventHub(
  options: { onListenerError?: (error: unknown, event: LiveEvent) => void } = {},
): EventHub {
  const subscriptions = new Set<HubSubscription>()
  // How many subscriptions hear each topic.
  const listeners = new Map<Topic, number>()
  const count = (topics: readonly Topic[], by: number) => {
    for (const topic of new Set(topics)) {
      const left = (listeners.get(topic) ?? 0) + by
      if (left > 0) listeners.set(topic, left)
      else listeners.delete(topic)
    }
  }
  let closed = false

  return {
    publish(message) {
      const { topic, event } = message
      let delivered = 0
      for (const subscription of [...subscriptions]) {
        if (!subscription.topics.includes(topic)) continue
        // One broken listener must not stop the others from hearing the event.
        try {
          subscription.onEvent(event, message)
          delivered += 1
        } catch (error) {
          options.onListenerError?.(error, event)
        }
      }
      return delivered
    },
    subscribe(subscription) {
      if (closed) {
        subscription.onClose?.()
        return () => undefined
      }
      subscriptions.add(subscription)
      count(subscription.topics, 1)
      return () => {
        if (subscriptions.delete(subscription)) count(subscription.topics, -1)
      }
    },
    subscriberCount() {
      // The event streams; the replica's own `internal` listeners (caches) are not counted.
      let count = 0
      for (const subscription of subscriptions)
        if (subscription.topics.some((topic) => topic !== 'internal')) count += 1
      return count
    },
    wants(topic) {
      return listeners.has(topic)
    },
    close() {
      closed = true
      const ending = [...subscriptions]
      subscriptions.clear()
      listeners.clear()
      for (const subscription of ending) subscription.onClose?.()
    },
  }
}

/** Builds a live event with a fresh id and the clock's time. */
export function createLiveEvent(type: string, data: unknown, clock: Clock): LiveEvent {
  return { id: crypto.randomUUID(), type, at: new Date(clock.now()).toISOString(), data }
}
