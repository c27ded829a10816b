// Events: every state change records one, and the engine's `onEvent` hands it to the deliverer.
import { resourceMissing } from '../errors.ts'
import { newId } from '../ids.ts'
import type { StripeEvent, Subscription } from '../objects.ts'
import { clone, type EngineCore, type Origin } from './core.ts'
import { previousAttributes } from './previous-attributes.ts'

export function emit(
  core: EngineCore,
  type: string,
  object: unknown,
  previous: Record<string, unknown> | undefined,
  origin: Origin,
): StripeEvent {
  const event: StripeEvent = {
    id: newId('evt', 24),
    object: 'event',
    api_version: core.options.apiVersion,
    created: core.now(),
    data: {
      object: clone(object),
      ...(previous && Object.keys(previous).length > 0 ? { previous_attributes: previous } : {}),
    },
    livemode: false,
    pending_webhooks: 0,
    request: { id: origin.requestId, idempotency_key: origin.idempotencyKey },
    type,
  }
  core.state.events[event.id] = event
  core.options.onEvent(event)
  return event
}

/** `customer.subscription.updated`, only when something changed. */
export function emitSubscriptionUpdated(
  core: EngineCore,
  before: Subscription,
  sub: Subscription,
  origin: Origin,
): void {
  const previous = previousAttributes(before, sub)
  if (Object.keys(previous).length > 0) {
    emit(core, 'customer.subscription.updated', sub, previous, origin)
  }
}

export function listEvents(core: EngineCore): StripeEvent[] {
  return Object.values(core.state.events).reverse().map(clone)
}

export function retrieveEvent(core: EngineCore, id: string): StripeEvent {
  const event = core.state.events[id]
  if (!event) throw resourceMissing('event', id)
  return clone(event)
}
