import { USAGE_EVENT_TYPE } from '@tessera/contracts'
import type { Usage } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import type { UsagePeriod } from './period.ts'
import type { UsageCounters } from './quota.ts'

/**
 * The usage as `GET /api/assistant/usage` and the `assistant.usage` live event give it. In a team
 * (counters with `team`), the top-level numbers are the member's, and the limit what their cap
 * and the pool still let them use: the meter reads the same either way.
 */
export function usageOf(counters: UsageCounters, limit: number, period: UsagePeriod): Usage {
  const base = {
    used: counters.used,
    reserved: counters.reserved,
    limit,
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
  }
  const team = counters.team
  if (team === undefined) return base
  const { member, pool } = team
  const poolLeft = Math.max(0, pool.limit - pool.used - pool.reserved)
  const capLeft =
    member.cap === null ? poolLeft : Math.max(0, member.cap - member.used - member.reserved)
  return {
    ...base,
    used: member.used,
    reserved: member.reserved,
    limit: member.used + member.reserved + Math.min(poolLeft, capLeft),
    member: { ...member },
    pool: { ...pool },
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
