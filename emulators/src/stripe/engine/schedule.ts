// The emulated clock's schedule: what falls due as time passes (renewals, cancellations at period
// end, trial-end notices, checkout expiry), run in time order, and the pruning of old events and
// idempotency keys.
import { DAY, realNow } from '../clock.ts'
import { invalidRequest } from '../errors.ts'
import { AUTOMATIC, LIVE_STATUSES, currentPeriodEnd, type EngineCore } from './core.ts'
import { expireSession } from './checkout.ts'
import { emit } from './events.ts'
import { cancelNow, renew } from './subscriptions.ts'

export interface ClockStep {
  at: number
  kind: 'renewal' | 'cancellation' | 'trial_will_end' | 'checkout_expired'
  id: string
}

const TRIAL_WILL_END_NOTICE = 3 * DAY
const MAX_ADVANCE = 10 * 366 * DAY
const EVENT_RETENTION = 30 * DAY

function moveClockTo(core: EngineCore, at: number): void {
  if (at > core.now()) core.state.clockOffset = at - realNow()
}

/** Runs everything due up to now (renewals, expiries) that real time has reached. */
export function tick(core: EngineCore): ClockStep[] {
  return runDue(core, core.now())
}

/** Moves the clock forward, running renewals, cancellations and trial ends in order. */
export function advance(core: EngineCore, seconds: number): ClockStep[] {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_ADVANCE) {
    throw invalidRequest(`seconds must be a whole number between 0 and ${MAX_ADVANCE}.`, 'seconds')
  }
  const target = core.now() + seconds
  const steps = runDue(core, target)
  moveClockTo(core, target)
  return steps
}

/** Stripe keeps events for 30 days and idempotency keys for 24 hours; so does the stand-in. */
function pruneEvents(core: EngineCore): void {
  const now = core.now()
  // Every API request ticks: walking thousands of events and keys on each one made the
  // stand-in a noticeable share of a webhook benchmark's CPU. Nothing expires within a second.
  if (core.pruned !== null && core.pruned.at === now && core.pruned.state === core.state) return
  core.pruned = { at: now, state: core.state }
  const horizon = now - EVENT_RETENTION
  for (const id in core.state.events) {
    const event = core.state.events[id]!
    if (event.created >= horizon) break
    if (core.state.deliveries[id]?.status === 'pending') continue
    delete core.state.events[id]
    delete core.state.deliveries[id]
  }
  for (const [key, entry] of Object.entries(core.state.idempotency)) {
    if (!entry.inFlight && entry.created + DAY <= now) delete core.state.idempotency[key]
  }
}

function runDue(core: EngineCore, until: number): ClockStep[] {
  pruneEvents(core)
  const steps: ClockStep[] = []
  // Each step moves its object's next due time forward, so this ends; the bound is a guard.
  for (let guard = 0; guard < 100_000; guard++) {
    const next = nextDue(core, until)
    if (!next) break
    moveClockTo(core, next.at)
    next.run()
    steps.push({ at: next.at, kind: next.kind, id: next.id })
  }
  return steps
}

function nextDue(core: EngineCore, until: number): (ClockStep & { run: () => void }) | null {
  // Called on every API request: the candidates are compared as plain values and only the
  // earliest one gets its step built (no object or closure per subscription and session).
  let bestAt = Infinity
  let best: (() => ClockStep & { run: () => void }) | null = null
  const better = (at: number) => at <= until && at < bestAt
  for (const sub of Object.values(core.state.subscriptions)) {
    if (!LIVE_STATUSES.includes(sub.status)) continue
    const periodEnd = currentPeriodEnd(sub)
    const cancelAt = sub.cancel_at
    if (cancelAt !== null && cancelAt <= periodEnd) {
      if (better(cancelAt)) {
        bestAt = cancelAt
        best = () => ({
          at: cancelAt,
          kind: 'cancellation',
          id: sub.id,
          run: () => cancelNow(core, sub, AUTOMATIC, 'cancellation_requested'),
        })
      }
    } else if (better(periodEnd)) {
      bestAt = periodEnd
      best = () => ({ at: periodEnd, kind: 'renewal', id: sub.id, run: () => renew(core, sub) })
    }
    if (
      sub.status === 'trialing' &&
      sub.trial_end !== null &&
      sub.trial_start !== null &&
      !core.state.trialWillEndSent[sub.id] &&
      sub.trial_end - TRIAL_WILL_END_NOTICE > sub.trial_start &&
      better(sub.trial_end - TRIAL_WILL_END_NOTICE)
    ) {
      const at = sub.trial_end - TRIAL_WILL_END_NOTICE
      bestAt = at
      best = () => ({
        at,
        kind: 'trial_will_end',
        id: sub.id,
        run: () => {
          core.state.trialWillEndSent[sub.id] = true
          emit(core, 'customer.subscription.trial_will_end', sub, undefined, AUTOMATIC)
        },
      })
    }
  }
  for (const session of Object.values(core.state.checkoutSessions)) {
    if (session.status !== 'open' || !better(session.expires_at)) continue
    bestAt = session.expires_at
    best = () => ({
      at: session.expires_at,
      kind: 'checkout_expired',
      id: session.id,
      run: () => expireSession(core, session, AUTOMATIC),
    })
  }
  return best === null ? null : best()
}
