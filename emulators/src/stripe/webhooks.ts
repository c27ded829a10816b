// Webhook delivery as Stripe does it: the event JSON signed with `Stripe-Signature: t=…,v1=…`
// (HMAC-SHA256 of `${t}.${payload}` with the endpoint secret), POSTed after the request that caused
// it has returned, retried with backoff on a non-2xx answer or a network error. Events go out one
// at a time in creation order; a retry is scheduled on its own, so it can arrive after later
// events, as with Stripe.
import type { StripeEvent } from './objects.ts'

export interface WebhookEndpoint {
  url: string
  secret: string
}

export type DeliveryTrigger = 'automatic' | 'retry' | 'resend' | 'manual'

export interface DeliveryAttempt {
  /** Real wall-clock time of the attempt (ISO 8601): deliveries happen in real time. */
  at: string
  trigger: DeliveryTrigger
  statusCode: number | null
  error: string | null
  durationMs: number
}

export interface Delivery {
  status: 'pending' | 'succeeded' | 'failed' | 'no_endpoint'
  attempts: DeliveryAttempt[]
  nextAttemptAt: string | null
}

export type WebhookFetch = (url: string, init: RequestInit) => Promise<Response>

export type LogFn = (
  level: 'debug' | 'info' | 'warn' | 'error',
  msg: string,
  fields?: Record<string, unknown>,
) => void

export interface DelivererOptions {
  endpoint: () => WebhookEndpoint | null
  event: (id: string) => StripeEvent | undefined
  deliveries: () => Record<string, Delivery>
  /** Delays in ms before each retry; attempts = 1 + its length. */
  retrySchedule: readonly number[]
  timeoutMs: number
  fetch: WebhookFetch
  onChange: () => void
  log: LogFn
}

const encoder = new TextEncoder()

function toHex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The `Stripe-Signature` header value for `payload`, signed at unix time `timestamp`. */
export async function signWebhookPayload(
  payload: string,
  secret: string,
  timestamp: number,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const signature = await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${payload}`))
  return `t=${timestamp},v1=${toHex(signature)}`
}

export interface DeliveryResult {
  eventId: string
  ok: boolean
  statusCode: number | null
  error: string | null
}

export class WebhookDeliverer {
  private queue: string[] = []
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>()
  private readonly controllers = new Set<AbortController>()
  private kickTimer: ReturnType<typeof setTimeout> | null = null
  private pumping = false
  private pausedFlag = false
  private closed = false

  constructor(private readonly options: DelivererOptions) {}

  get paused(): boolean {
    return this.pausedFlag
  }

  /** Records a new event and queues its delivery (after the current request has returned). */
  register(event: StripeEvent): void {
    const endpoint = this.options.endpoint()
    const delivery: Delivery = {
      status: endpoint ? 'pending' : 'no_endpoint',
      attempts: [],
      nextAttemptAt: null,
    }
    this.options.deliveries()[event.id] = delivery
    event.pending_webhooks = endpoint ? 1 : 0
    if (endpoint) this.enqueue(event.id)
  }

  /** Re-queues deliveries that were pending when the state was saved. */
  restore(): void {
    for (const [eventId, delivery] of Object.entries(this.options.deliveries())) {
      if (delivery.status !== 'pending') continue
      const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - Date.now() : 0
      if (due > 0) this.scheduleRetry(eventId, due)
      else this.enqueue(eventId)
    }
  }

  pause(): void {
    this.pausedFlag = true
  }

  resume(): void {
    this.pausedFlag = false
    this.kick()
  }

  /** Whether nothing is queued, in flight or scheduled. */
  idle(): boolean {
    return this.queue.length === 0 && !this.pumping && this.timers.size === 0
  }

  pendingIds(): string[] {
    return [...this.queue]
  }

  /** Forgets every queued and scheduled delivery (used by reset). */
  clear(): void {
    this.queue = []
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    for (const controller of this.controllers) controller.abort()
  }

  close(): void {
    this.closed = true
    this.clear()
    if (this.kickTimer) clearTimeout(this.kickTimer)
  }

  /**
   * Delivers one event now, outside the queue (resend, or a test choosing the order). A success
   * settles a pending delivery; a failure leaves its automatic schedule as it was.
   */
  async deliverNow(eventId: string, trigger: 'resend' | 'manual'): Promise<DeliveryResult> {
    const attempt = await this.attempt(eventId, trigger)
    const delivery = this.options.deliveries()[eventId]
    if (attempt.ok && delivery && delivery.status !== 'succeeded') {
      this.settle(eventId, delivery, 'succeeded')
    }
    return attempt
  }

  private enqueue(eventId: string): void {
    if (!this.queue.includes(eventId)) this.queue.push(eventId)
    this.kick()
  }

  private kick(): void {
    if (this.closed || this.kickTimer) return
    // A timer, not a microtask: delivery must start after the response that caused the event.
    this.kickTimer = setTimeout(() => {
      this.kickTimer = null
      void this.pump()
    }, 0)
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (!this.pausedFlag && !this.closed) {
        const eventId = this.queue.shift()
        if (eventId === undefined) break
        const delivery = this.options.deliveries()[eventId]
        if (!delivery || delivery.status !== 'pending') continue
        const automatic = delivery.attempts.filter(
          (a) => a.trigger === 'automatic' || a.trigger === 'retry',
        ).length
        const result = await this.attempt(eventId, automatic === 0 ? 'automatic' : 'retry')
        if (this.closed || delivery.status !== 'pending') continue
        if (result.ok) {
          this.settle(eventId, delivery, 'succeeded')
        } else {
          const delay = this.options.retrySchedule[automatic]
          if (delay === undefined) {
            this.settle(eventId, delivery, 'failed')
            this.options.log('warn', 'webhook delivery gave up', {
              eventId,
              attempts: automatic + 1,
            })
          } else {
            delivery.nextAttemptAt = new Date(Date.now() + delay).toISOString()
            this.scheduleRetry(eventId, delay)
          }
        }
        this.options.onChange()
      }
    } finally {
      this.pumping = false
    }
    if (this.queue.length > 0 && !this.pausedFlag && !this.closed) this.kick()
  }

  private settle(eventId: string, delivery: Delivery, status: 'succeeded' | 'failed'): void {
    delivery.status = status
    delivery.nextAttemptAt = null
    const timer = this.timers.get(eventId)
    if (timer) clearTimeout(timer)
    this.timers.delete(eventId)
    this.queue = this.queue.filter((id) => id !== eventId)
    const event = this.options.event(eventId)
    if (event) event.pending_webhooks = 0
    this.options.onChange()
  }

  private scheduleRetry(eventId: string, delay: number): void {
    const existing = this.timers.get(eventId)
    if (existing) clearTimeout(existing)
    this.timers.set(
      eventId,
      setTimeout(() => {
        this.timers.delete(eventId)
        this.enqueue(eventId)
      }, delay),
    )
  }

  private async attempt(eventId: string, trigger: DeliveryTrigger): Promise<DeliveryResult> {
    const event = this.options.event(eventId)
    const endpoint = this.options.endpoint()
    const delivery = this.options.deliveries()[eventId]
    if (!event || !delivery) return { eventId, ok: false, statusCode: null, error: 'unknown event' }
    if (!endpoint) {
      return { eventId, ok: false, statusCode: null, error: 'no webhook endpoint is configured' }
    }
    // Stripe sends the event pretty-printed; receivers must verify the raw bytes, not re-serialise.
    const payload = JSON.stringify(event, null, 2)
    const timestamp = Math.floor(Date.now() / 1000)
    const signature = await signWebhookPayload(payload, endpoint.secret, timestamp)
    const controller = new AbortController()
    this.controllers.add(controller)
    const timeout = setTimeout(() => controller.abort(), this.options.timeoutMs)
    const started = Date.now()
    let statusCode: number | null = null
    let error: string | null = null
    try {
      const response = await this.options.fetch(endpoint.url, {
        method: 'POST',
        body: payload,
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'Stripe-Signature': signature,
          'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'Cache-Control': 'no-cache',
          Accept: '*/*; q=0.5, application/xml',
        },
        // Stripe treats a redirect as a failed delivery.
        redirect: 'manual',
        signal: controller.signal,
      })
      statusCode = response.status
      // Drain the body so the connection can be reused; its content does not matter.
      await response.arrayBuffer()
      if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`
    } catch (cause) {
      error = controller.signal.aborted
        ? `timed out after ${this.options.timeoutMs} ms`
        : cause instanceof Error
          ? cause.message
          : String(cause)
    } finally {
      clearTimeout(timeout)
      this.controllers.delete(controller)
    }
    delivery.attempts.push({
      at: new Date(started).toISOString(),
      trigger,
      statusCode,
      error,
      durationMs: Date.now() - started,
    })
    const ok = error === null
    this.options.log(ok ? 'debug' : 'warn', 'webhook delivery', {
      eventId,
      type: event.type,
      trigger,
      statusCode,
      error,
    })
    this.options.onChange()
    return { eventId, ok, statusCode, error }
  }
}
