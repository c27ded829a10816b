import { USAGE_EVENT_TYPE } from '@tessera/contracts'
import type { Usage } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import type { UsagePeriod } from './period.ts'
import type { UsageCounters } from './quota.ts'

/** The usage as `GET /api/assistant/usage` and the `assistant.usage` live event give it. */
export function usageOf(counters: UsageCounters, limit: number, period: UsagePeriod): Usage {
  return {
    used: counters.used,
    reserved: counters.reserved,
    limit,
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
  }
}

/**
 * Tells every tab of the user that their usage changed (a hold taken, an answer counted). The
 * counters are committed already (quota.ts); the event follows in a statement of its own, and
 * nobody waits for it: an answer's first token must not.
 */
export function publishUsage(
  deps: { bus: EventBus; clock: Clock; logger: Logger },
  userId: string,
  usage: Usage,
): void {
  const event = createLiveEvent(USAGE_EVENT_TYPE, usage, deps.clock)
  deps.bus.publish({ topic: userTopic(userId), event }).catch((error: unknown) => {
    deps.logger.warn('usage event not published', { error, userId })
  })
}
