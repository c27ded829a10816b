import { useCallback, useEffect, useRef, useState } from 'react'
import type { SubscriptionResponse } from '@tessera/contracts/billing'
import { usePlatform } from '@tessera/plugin-react/platform'
import { describeFailure, type Failure } from './failure.ts'
import { ENTITLEMENTS_EVENT, SUBSCRIPTION_EVENT } from './live-event-types.ts'
import { isSubscriptionResponse } from './subscription-data.ts'
import { useBillingApi } from './use-billing-api.ts'

export type SubscriptionState =
  | { status: 'loading' }
  | { status: 'ready'; data: SubscriptionResponse }
  | { status: 'failed'; failure: Failure }

/**
 * The user's subscription, kept live: a `billing.subscription` event replaces it, an
 * `entitlements` event (or the live stream coming back after a gap) reads it again. A read that
 * started before newer news arrived is dropped, so the page never goes back to an older state.
 */
export function useSubscription(): { state: SubscriptionState; reload: () => Promise<void> } {
  const platform = usePlatform()
  const api = useBillingApi()
  const [state, setState] = useState<SubscriptionState>({ status: 'loading' })
  // Bumped by every read and every event: only the latest may set the state.
  const generation = useRef(0)
  // The workspace the page shows: news of another (a team's, seen from the personal one) is not
  // this page's.
  const shown = useRef<string | undefined>(undefined)
  if (state.status === 'ready') shown.current = state.data.entitlements.workspace?.id

  const reload = useCallback(async () => {
    const mine = ++generation.current
    try {
      const data = await api.subscription()
      if (mine === generation.current) setState({ status: 'ready', data })
    } catch (error) {
      if (mine !== generation.current) return
      setState({
        status: 'failed',
        failure: describeFailure(error, 'Your subscription could not be loaded.'),
      })
    }
  }, [api])

  useEffect(() => {
    void reload()
  }, [reload])

  useEffect(() => {
    const offSubscription = platform.events.subscribe(SUBSCRIPTION_EVENT, (event) => {
      if (!isSubscriptionResponse(event.data)) {
        console.warn('A billing.subscription event did not have the expected shape', event.data)
        return
      }
      const news = event.data.entitlements.workspace?.id
      if (shown.current !== undefined && news !== undefined && news !== shown.current) return
      generation.current += 1
      setState({ status: 'ready', data: event.data })
    })
    const offEntitlements = platform.events.subscribe(ENTITLEMENTS_EVENT, () => void reload())
    let previous = platform.events.status()
    const offStatus = platform.events.onStatus((status) => {
      // News sent while the stream was down may never reach this page: read again.
      if (status === 'open' && previous !== 'open') void reload()
      previous = status
    })
    return () => {
      offSubscription()
      offEntitlements()
      offStatus()
    }
  }, [platform, reload])

  return { state, reload }
}
