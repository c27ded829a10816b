import { USAGE_EVENT_TYPE } from '@tessera/contracts'
import type { Usage } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventHub } from '../events/event-hub.ts'
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

/** Tells every tab of the user that their usage changed (a hold taken, an answer counted). */
export function publishUsage(hub: EventHub, clock: Clock, userId: string, usage: Usage): void {
  hub.publish({ topic: userTopic(userId), event: createLiveEvent(USAGE_EVENT_TYPE, usage, clock) })
}
