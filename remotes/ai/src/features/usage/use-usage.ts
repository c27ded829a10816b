import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react'
import type { Usage } from '@tessera/contracts/assistant'
import { USAGE_EVENT_TYPE } from '@tessera/contracts/assistant-values'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { createAssistantApi } from '../../lib/assistant-api.ts'
import { asUsage } from '../../lib/quota.ts'
import { usageStoreOf, type UsageState } from './usage-store.ts'

export type { UsageState } from './usage-store.ts'

/**
 * This month's token usage: read from the BFF once for every mount of the page (usage-store.ts),
 * then kept current by `assistant.usage` live events (from this tab's sends and every other
 * tab's). Read again when the plan changes (a new limit) and when the live stream reconnects
 * (events may have been missed).
 */
export function useUsage(): { state: UsageState; reload: () => void } {
  const platform = usePlatform()
  const session = useSession()
  const store = useMemo(() => {
    const api = createAssistantApi(platform)
    return usageStoreOf(platform.api, () => api.usage())
  }, [platform])
  const state = useSyncExternalStore(store.subscribe, store.current)

  const signedIn = session.status === 'signed-in'
  const userId = signedIn ? session.user.id : null
  const entitlements = signedIn ? session.entitlements : undefined
  const planKey = entitlements ? `${entitlements.plan}:${entitlements.monthlyTokens}` : ''
  const expectedLimit = entitlements?.monthlyTokens
  const reload = useCallback(() => store.reload(expectedLimit), [store, expectedLimit])

  useEffect(() => {
    if (userId === null)
      store.clear({ status: session.status === 'loading' ? 'loading' : 'signed-out' })
    else store.ensure(`${userId}:${planKey}`, expectedLimit)
  }, [store, userId, planKey, expectedLimit, session.status])

  useEffect(() => {
    if (userId === null) return
    const offEvent = platform.events.subscribe(USAGE_EVENT_TYPE, (event) => {
      const usage = asUsage(event.data)
      if (usage === null) {
        console.warn('An assistant.usage event without usage was ignored', event)
        return
      }
      store.apply(usage)
    })
    let previous = platform.events.status()
    const offStatus = platform.events.onStatus((status) => {
      if (status === 'open' && previous === 'reconnecting') reload()
      previous = status
    })
    return () => {
      offEvent()
      offStatus()
    }
  }, [platform, store, userId, reload])

  return { state, reload }
}

/** Where the numbers stand: the share used, and whether the month's tokens are gone. */
export function usageLevel(usage: Usage): { ratio: number; level: 'ok' | 'high' | 'reached' } {
  const ratio = usage.limit === 0 ? 1 : Math.min(1, usage.used / usage.limit)
  return { ratio, level: usage.used >= usage.limit ? 'reached' : ratio >= 0.8 ? 'high' : 'ok' }
}
