import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { Usage } from '@tessera/contracts/assistant'
import { USAGE_EVENT_TYPE } from '@tessera/contracts/assistant-values'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { asApiError } from '@tessera/plugin-react/api-error'
import { createAssistantApi } from '../../lib/assistant-api.ts'
import { asUsage } from '../../lib/quota.ts'

export type UsageState =
  | { status: 'loading' }
  | { status: 'ready'; usage: Usage }
  | { status: 'failed'; message: string }
  | { status: 'signed-out' }

/**
 * This month's token usage: read from the BFF, then kept current by `assistant.usage` live events
 * (from this tab's sends and every other tab's). Read again when the plan changes (a new limit)
 * and when the live stream reconnects (events may have been missed).
 */
export function useUsage(): { state: UsageState; reload: () => void } {
  const platform = usePlatform()
  const session = useSession()
  const api = useMemo(() => createAssistantApi(platform), [platform])
  const [state, setState] = useState<UsageState>({ status: 'loading' })
  // A live event newer than a read in flight wins over that read's answer.
  const version = useRef(0)

  const signedIn = session.status === 'signed-in'
  const userId = signedIn ? session.user.id : null
  const entitlements = signedIn ? session.entitlements : undefined
  const planKey = entitlements ? `${entitlements.plan}:${entitlements.monthlyTokens}` : ''

  const expectedLimit = entitlements?.monthlyTokens
  const reload = useCallback(() => {
    const started = ++version.current
    // With several BFF replicas, the one answering may not have dropped its copy of the old plan
    // yet when this tab already heard of the new one: read again, a few times, until they agree.
    const read = (retries: number): Promise<Usage> =>
      api.usage().then((usage) =>
        // In a team, the plan's tokens are the pool's limit; the meter's is the member's share.
        expectedLimit === undefined ||
        (usage.pool?.limit ?? usage.limit) === expectedLimit ||
        retries === 0
          ? usage
          : new Promise<Usage>((resolve) => setTimeout(resolve, 300)).then(() => read(retries - 1)),
      )
    read(5).then(
      (usage) => {
        if (version.current === started) setState({ status: 'ready', usage })
      },
      (error: unknown) => {
        if (version.current !== started) return
        const apiError = asApiError(error)
        if (apiError?.code === 'unauthenticated' || apiError?.code === 'session_revoked') {
          setState({ status: 'signed-out' })
          return
        }
        if (apiError === null) console.error('Reading the token usage failed', error)
        setState({ status: 'failed', message: 'Your token usage could not be loaded.' })
      },
    )
  }, [api, expectedLimit])

  useEffect(() => {
    if (userId === null) {
      version.current += 1
      setState({ status: session.status === 'loading' ? 'loading' : 'signed-out' })
      return
    }
    reload()
  }, [userId, planKey, reload, session.status])

  useEffect(() => {
    if (userId === null) return
    const offEvent = platform.events.subscribe(USAGE_EVENT_TYPE, (event) => {
      const usage = asUsage(event.data)
      if (usage === null) {
        console.warn('An assistant.usage event without usage was ignored', event)
        return
      }
      version.current += 1
      setState({ status: 'ready', usage })
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
  }, [platform, userId, reload])

  return { state, reload }
}

/** Where the numbers stand: the share used, and whether the month's tokens are gone. */
export function usageLevel(usage: Usage): { ratio: number; level: 'ok' | 'high' | 'reached' } {
  const ratio = usage.limit === 0 ? 1 : Math.min(1, usage.used / usage.limit)
  return { ratio, level: usage.used >= usage.limit ? 'reached' : ratio >= 0.8 ? 'high' : 'ok' }
}
