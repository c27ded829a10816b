// What tests and `/_emulator` can do to a running stand-in: the control object `createStripeEmulator`
// returns, and the faults it can inject.
import type { CardInput } from './cards.ts'
import type { CheckoutResult, ClockStep } from './engine.ts'
import type { StripeEvent } from './objects.ts'
import type { StripeState } from './state.ts'
import type { Delivery, DeliveryResult, WebhookEndpoint } from './webhooks.ts'

/** A failure the next matching API requests suffer, for testing timeouts and retries. */
export interface Fault {
  /** How many requests it applies to. */
  count: number
  /** Only requests with this method (any when absent). */
  method?: string
  /** Only requests whose path starts with this (`/v1/customers`; any when absent). */
  path?: string
  /** Wait this long before answering (the request then proceeds, as a slow Stripe would). */
  delayMs?: number
  /** Answer with this status instead of handling the request: 500, 503 or 429. */
  status?: 429 | 500 | 503
}

export interface EventWithDelivery {
  event: StripeEvent
  delivery: Delivery | null
}

export interface StripeEmulatorControl {
  /** Emulated unix time. */
  now(): number
  advanceClock(seconds: number): ClockStep[]
  pauseWebhooks(): void
  resumeWebhooks(): void
  /** Delivers these events now, one after the other, whatever the pause state. */
  deliver(eventIds: readonly string[]): Promise<DeliveryResult[]>
  resend(eventId: string): Promise<DeliveryResult>
  setWebhookEndpoint(endpoint: WebhookEndpoint | null): void
  /** Every event, oldest first, with its delivery attempts. */
  events(): EventWithDelivery[]
  /** Whether no delivery is queued, running or scheduled for retry. */
  webhooksIdle(): boolean
  payCheckoutSession(id: string, card: CardInput & { email?: string }): CheckoutResult
  reset(): void
  /** The whole state as JSON (for `/_emulator/state` and for saving). */
  state(): Record<string, unknown>
  snapshot(): StripeState
  injectFault(fault: Fault): void
  clearFaults(): void
  close(): void
}
