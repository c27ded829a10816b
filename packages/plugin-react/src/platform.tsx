import { createContext, use, useEffect, useState } from 'react'
import type { ReactNode } from 'react'
import type { LiveEvent } from '@tessera/contracts/events'
import type { LiveEventStatus, Platform } from '@tessera/contracts/platform'

const PlatformContext = createContext<Platform | null>(null)

export function PlatformProvider({
  platform,
  children,
}: {
  platform: Platform
  children: ReactNode
}) {
  return <PlatformContext value={platform}>{children}</PlatformContext>
}

/** The platform the host handed this mount. */
export function usePlatform(): Platform {
  const platform = use(PlatformContext)
  if (platform === null)
    throw new Error('usePlatform must be used inside a plugin mounted with mountReact')
  return platform
}

/**
 * Follows one value of the platform. State plus a subscription (rather than
 * useSyncExternalStore) because the contract does not promise that `current()` returns the same
 * object for the same state.
 */
function usePlatformValue<T>(
  read: (platform: Platform) => T,
  subscribe: (platform: Platform, onChange: () => void) => () => void,
): T {
  const platform = usePlatform()
  const [value, setValue] = useState(() => read(platform))
  useEffect(() => {
    setValue(read(platform))
    return subscribe(platform, () => setValue(read(platform)))
  }, [platform, read, subscribe])
  return value
}

const readRoute = (platform: Platform) => platform.route.current()
const subscribeRoute = (platform: Platform, onChange: () => void) =>
  platform.route.subscribe(onChange)
export const useRoute = () => usePlatformValue(readRoute, subscribeRoute)

const readSession = (platform: Platform) => platform.session.current()
const subscribeSession = (platform: Platform, onChange: () => void) =>
  platform.session.subscribe(onChange)
export const useSession = () => usePlatformValue(readSession, subscribeSession)

const readTheme = (platform: Platform) => platform.theme.current()
const subscribeTheme = (platform: Platform, onChange: () => void) =>
  platform.theme.subscribe(onChange)
export const useTheme = () => usePlatformValue(readTheme, subscribeTheme)

const readEventStatus = (platform: Platform): LiveEventStatus => platform.events.status()
const subscribeEventStatus = (platform: Platform, onChange: () => void) =>
  platform.events.onStatus(onChange)
export const useEventStatus = () => usePlatformValue(readEventStatus, subscribeEventStatus)

/**
 * Every live event received since mount, newest first, keeping the latest `limit`. An event seen
 * before (replayed after a reconnect) is not listed twice.
 */
export function useLiveEvents(limit = 20): LiveEvent[] {
  const platform = usePlatform()
  const [events, setEvents] = useState<LiveEvent[]>([])
  useEffect(
    () =>
      platform.events.subscribe('*', (event) =>
        setEvents((previous) =>
          previous.some((seen) => seen.id === event.id)
            ? previous
            : [event, ...previous].slice(0, limit),
        ),
      ),
    [platform, limit],
  )
  return events
}
