import type { Usage } from '@tessera/contracts/assistant'
import { formatCount, formatDay } from '@tessera/plugin-react/format'

/**
 * Below this many tokens left, nothing more can be sent: every send holds the longest answer
 * (1 024 tokens by default) on top of its prompt until it ends.
 */
export const NOTHING_LEFT = 1_500

/** Usage read by shape: a live event's data or a refusal's `details`, from our BFF but untyped. */
export function asUsage(data: unknown): Usage | null {
  if (typeof data !== 'object' || data === null) return null
  const candidate = data as Partial<Record<keyof Usage, unknown>>
  const whole = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0
  if (!whole(candidate.used) || !whole(candidate.reserved) || !whole(candidate.limit)) return null
  if (typeof candidate.periodStart !== 'string' || typeof candidate.periodEnd !== 'string')
    return null
  const usage: Usage = {
    used: candidate.used as number,
    reserved: candidate.reserved as number,
    limit: candidate.limit as number,
    periodStart: candidate.periodStart,
    periodEnd: candidate.periodEnd,
  }
  // In a team: the member's share and the pool, kept when they have their shape.
  const pool = candidate.pool as Partial<Record<string, unknown>> | undefined
  const member = candidate.member as Partial<Record<string, unknown>> | undefined
  if (
    typeof pool === 'object' &&
    pool !== null &&
    whole(pool.used) &&
    whole(pool.reserved) &&
    whole(pool.limit) &&
    typeof member === 'object' &&
    member !== null &&
    whole(member.used) &&
    whole(member.reserved) &&
    (member.cap === null || whole(member.cap))
  ) {
    usage.pool = {
      used: pool.used as number,
      reserved: pool.reserved as number,
      limit: pool.limit as number,
    }
    usage.member = {
      used: member.used as number,
      reserved: member.reserved as number,
      cap: member.cap as number | null,
    }
  }
  return usage
}

/** Tokens that can still be held this month: answers in flight hold theirs until they end. */
export function tokensLeft(usage: Usage): number {
  return Math.max(0, usage.limit - usage.used - usage.reserved)
}

/**
 * What a quota refusal means with this month's numbers: nothing left, or not enough for this
 * message. The failure card shows it and the page announces it, so both say the same.
 */
export function quotaSentence(usage: Usage): { message: string; nothingLeft: boolean } {
  const left = tokensLeft(usage)
  if (left < NOTHING_LEFT) {
    return {
      nothingLeft: true,
      message: `You have used this month’s ${formatCount(usage.limit)} tokens. Upgrade your plan to keep chatting, or wait until ${formatDay(usage.periodEnd)}.`,
    }
  }
  return {
    nothingLeft: false,
    // A send holds its whole prompt (the conversation so far, too) and the longest answer.
    message: `Only ${formatCount(left)} of this month’s tokens are left: not enough for this message and the conversation before it. Upgrade your plan, or send a shorter message in a new conversation.`,
  }
}
