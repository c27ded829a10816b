import { useCallback, useEffect, useRef, useState } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { describeFailure, type Failure } from './failure.ts'

export interface LiveResource<T> {
  /** The last answer; kept while a later read fails, so the page still shows what it knew. */
  data: T | null
  /** The last read's failure, null once a read succeeds. */
  failure: Failure | null
  /** When `data` was read (ms since the epoch). */
  updatedAt: number | null
  /** Reads again now (after an action, or from a Try again button). */
  reload(): Promise<void>
}

export interface LiveResourceOptions {
  /** Re-read this often while the page is visible; off when absent. */
  pollMs?: number
  /** Live event types on which to re-read at once (`registry.changed`). */
  liveEvents?: readonly string[]
}

/**
 * What a console page shows from the BFF, kept fresh: read on mount, again on each of the named
 * live events, and every `pollMs` while the tab is visible (hidden tabs do not poll; they read at
 * once when shown again). One read at a time: a request asked for meanwhile becomes one more read
 * after it. `load` must be stable (memoised): a page is keyed by its route, so it never changes.
 */
export function useLiveResource<T>(
  load: () => Promise<T>,
  lead: string,
  { pollMs, liveEvents = [] }: LiveResourceOptions = {},
): LiveResource<T> {
  const platform = usePlatform()
  const [state, setState] = useState<Omit<LiveResource<T>, 'reload'>>({
    data: null,
    failure: null,
    updatedAt: null,
  })
  const readRef = useRef<() => Promise<void>>(() => Promise.resolve())
  const eventKey = liveEvents.join(' ')

  useEffect(() => {
    let alive = true
    let current: Promise<void> | null = null
    let again = false

    const readOnce = async () => {
      try {
        const data = await load()
        if (alive) setState({ data, failure: null, updatedAt: Date.now() })
      } catch (error) {
        if (alive) setState((previous) => ({ ...previous, failure: describeFailure(error, lead) }))
      }
    }
    const read = (): Promise<void> => {
      if (current !== null) {
        again = true
        return current
      }
      current = (async () => {
        do {
          again = false
          await readOnce()
        } while (again && alive)
        current = null
      })()
      return current
    }
    readRef.current = read

    let timer: ReturnType<typeof setInterval> | undefined
    const schedule = () => {
      clearInterval(timer)
      timer = undefined
      if (pollMs !== undefined && document.visibilityState === 'visible') {
        timer = setInterval(() => void read(), pollMs)
      }
    }
    const onVisibility = () => {
      if (document.visibilityState === 'visible') void read()
      schedule()
    }
    void read()
    schedule()
    document.addEventListener('visibilitychange', onVisibility)
    const unsubscribers = eventKey
      .split(' ')
      .filter(Boolean)
      .map((type) => platform.events.subscribe(type, () => void read()))
    return () => {
      alive = false
      clearInterval(timer)
      document.removeEventListener('visibilitychange', onVisibility)
      for (const unsubscribe of unsubscribers) unsubscribe()
    }
  }, [platform, load, lead, pollMs, eventKey])

  const reload = useCallback(() => readRef.current(), [])
  return { ...state, reload }
}
