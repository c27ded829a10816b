import { useCallback, useEffect, useRef, useState } from 'react'
import type { CheckoutStatus } from '@tessera/contracts/billing'
import { usePlatform } from '@tessera/plugin-react/platform'
import { asApiError } from '@tessera/plugin-react/api-error'
import { describeFailure, type Failure } from '../../lib/failure.ts'
import { ENTITLEMENTS_EVENT, SUBSCRIPTION_EVENT } from '../../lib/live-event-types.ts'
import { useBillingApi } from '../../lib/use-billing-api.ts'

/**
 * Where a checkout stands, as the BFF reports it. `paid` means Stripe says the checkout is
 * complete but the webhook has not been applied yet: access is granted only at `confirmed`.
 */
export type CheckoutPhase = 'checking' | 'unpaid' | 'paid' | 'confirmed' | 'expired' | 'not-found'

export interface ConfirmationState {
  phase: CheckoutPhase
  status: CheckoutStatus | null
  /** No confirmation within the time limit: the page says what to do (and keeps checking). */
  timedOut: boolean
  /** The latest failed check, kept while checking goes on. */
  failure: Failure | null
}

export interface ConfirmationTiming {
  /** How long to wait for the confirmation before saying what to do. */
  timeoutMs: number
  /** Pause between checks in the first stretch, when the webhook is most likely to arrive. */
  fastPollMs: number
  /** Pause between checks after that, and after the time limit. */
  slowPollMs: number
  /** How long checks stay fast. */
  fastForMs: number
}

export const defaultTiming: ConfirmationTiming = {
  timeoutMs: 45_000,
  fastPollMs: 1_000,
  slowPollMs: 4_000,
  fastForMs: 15_000,
}

function phaseOf(status: CheckoutStatus): CheckoutPhase {
  if (status.confirmed) return 'confirmed'
  if (status.status === 'expired') return 'expired'
  return status.status === 'complete' ? 'paid' : 'unpaid'
}

const finished = (phase: CheckoutPhase) =>
  phase === 'confirmed' || phase === 'expired' || phase === 'not-found'

/**
 * Waits for the webhook-confirmed state of one checkout: asks the BFF now, again on a schedule,
 * and at once whenever a billing or entitlements live event arrives. The redirect from Stripe is
 * never taken as proof of payment; only `confirmed` from the BFF is.
 */
export function useCheckoutConfirmation(
  sessionId: string,
  timing: ConfirmationTiming = defaultTiming,
): { state: ConfirmationState; checkNow: () => void } {
  const platform = usePlatform()
  const api = useBillingApi()
  const [state, setState] = useState<ConfirmationState>({
    phase: 'checking',
    status: null,
    timedOut: false,
    failure: null,
  })
  const phaseRef = useRef<CheckoutPhase>('checking')
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const inFlight = useRef(false)
  const again = useRef(false)
  const startedAt = useRef(0)
  const refreshedSession = useRef(false)
  // False once unmounted: a check still out then neither sets state nor schedules another.
  const alive = useRef(false)

  const check = useCallback(async (): Promise<void> => {
    if (!alive.current || finished(phaseRef.current)) return
    // One request at a time; news that arrives meanwhile asks for one more check after it.
    if (inFlight.current) {
      again.current = true
      return
    }
    inFlight.current = true
    if (timer.current !== null) clearTimeout(timer.current)
    timer.current = null
    try {
      const status = await api.checkoutStatus(sessionId)
      if (!alive.current) return
      const phase = phaseOf(status)
      phaseRef.current = phase
      setState((previous) => ({ ...previous, phase, status, failure: null }))
      if (phase === 'confirmed' && !refreshedSession.current) {
        refreshedSession.current = true
        // The entitlements event may have gone out before this tab's stream connected; reading
        // the session again puts the new plan in the header either way.
        const known = platform.session.current()
        if (known.status !== 'signed-in' || known.entitlements?.plan !== status.plan) {
          void platform.session.refresh()
        }
      }
    } catch (error) {
      if (!alive.current) return
      const code = asApiError(error)?.code
      // Not this user's checkout, or not a checkout id at all: checking again will not help.
      if (code === 'not_found' || code === 'validation_failed') {
        phaseRef.current = 'not-found'
        setState((previous) => ({ ...previous, phase: 'not-found', failure: null }))
      } else {
        const failure = describeFailure(error, 'We could not check your payment just now.')
        setState((previous) => ({ ...previous, failure }))
      }
    } finally {
      inFlight.current = false
    }
    if (!alive.current || finished(phaseRef.current)) return
    if (again.current) {
      again.current = false
      void check()
      return
    }
    const elapsed = Date.now() - startedAt.current
    const pause = elapsed < timing.fastForMs ? timing.fastPollMs : timing.slowPollMs
    timer.current = setTimeout(() => void check(), pause)
  }, [api, platform, sessionId, timing.fastForMs, timing.fastPollMs, timing.slowPollMs])

  useEffect(() => {
    alive.current = true
    startedAt.current = Date.now()
    void check()
    const onNews = () => void check()
    const offEntitlements = platform.events.subscribe(ENTITLEMENTS_EVENT, onNews)
    const offSubscription = platform.events.subscribe(SUBSCRIPTION_EVENT, onNews)
    const deadline = setTimeout(() => {
      if (!finished(phaseRef.current)) setState((previous) => ({ ...previous, timedOut: true }))
    }, timing.timeoutMs)
    return () => {
      alive.current = false
      offEntitlements()
      offSubscription()
      clearTimeout(deadline)
      if (timer.current !== null) clearTimeout(timer.current)
      timer.current = null
    }
  }, [check, platform, timing.timeoutMs])

  return { state, checkNow: () => void check() }
}
