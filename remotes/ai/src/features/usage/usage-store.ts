import type { Usage } from '@tessera/contracts/assistant'
import type { PlatformApi } from '@tessera/contracts/platform'
import { asApiError } from '@tessera/plugin-react/api-error'

export type UsageState =
  | { status: 'loading' }
  | { status: 'ready'; usage: Usage }
  | { status: 'failed'; message: string }
  | { status: 'signed-out' }

/**
 * This month's usage as every mount of the remote on one page sees it (the header's meter and the
 * assistant's page): one read for all of them, kept current by the live events each mount hears.
 */
export interface UsageStore {
  current(): UsageState
  subscribe(listener: () => void): () => void
  /** Reads for `viewer` (user and plan) unless that read is done or under way. */
  ensure(viewer: string, expectedLimit: number | undefined): void
  /** Reads again (after a send, a retry, a reconnect); calls made together read once. */
  reload(expectedLimit: number | undefined): void
  /** A live event's figures: newer than any read in flight. */
  apply(usage: Usage): void
  /** No one to read for: signed out, or the session still loading. */
  clear(state: { status: 'loading' } | { status: 'signed-out' }): void
}

type ReadUsage = () => Promise<Usage>

// With several BFF replicas, the one answering may not have dropped its copy of the old plan yet
// when this tab already heard of the new one: read again, a few times, until they agree.
const PLAN_RETRIES = 5
const PLAN_RETRY_MS = 300

export function createUsageStore(readUsage: ReadUsage): UsageStore {
  let state: UsageState = { status: 'loading' }
  let viewer = ''
  // A live event or a newer read makes the answer of a read in flight out of date.
  let version = 0
  let inFlight = false
  let readThisTurn = false
  const listeners = new Set<() => void>()

  const set = (next: UsageState) => {
    state = next
    for (const listener of [...listeners]) listener()
  }

  const read = (expectedLimit: number | undefined) => {
    const started = ++version
    inFlight = true
    readThisTurn = true
    queueMicrotask(() => (readThisTurn = false))
    const attempt = (retries: number): Promise<Usage> =>
      readUsage().then((usage) =>
        // In a team, the plan's tokens are the pool's limit; the meter's is the member's share.
        expectedLimit === undefined ||
        (usage.pool?.limit ?? usage.limit) === expectedLimit ||
        retries === 0
          ? usage
          : new Promise<Usage>((resolve) => setTimeout(resolve, PLAN_RETRY_MS)).then(() =>
              attempt(retries - 1),
            ),
      )
    attempt(PLAN_RETRIES).then(
      (usage) => {
        if (version !== started) return
        inFlight = false
        set({ status: 'ready', usage })
      },
      (error: unknown) => {
        if (version !== started) return
        inFlight = false
        const apiError = asApiError(error)
        if (apiError?.code === 'unauthenticated' || apiError?.code === 'session_revoked') {
          set({ status: 'signed-out' })
          return
        }
        if (apiError === null) console.error('Reading the token usage failed', error)
        set({ status: 'failed', message: 'Your token usage could not be loaded.' })
      },
    )
  }

  return {
    current: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
        // Once no mount is left, no one hears the live events: the next one reads again. A mount
        // that comes back in the same task (React's strict mode) keeps what there is.
        if (listeners.size === 0)
          setTimeout(() => {
            if (listeners.size > 0) return
            viewer = ''
            version += 1
            inFlight = false
          })
      }
    },
    ensure(next, expectedLimit) {
      if (next === viewer && (inFlight || state.status === 'ready')) return
      viewer = next
      if (state.status !== 'ready') set({ status: 'loading' })
      read(expectedLimit)
    },
    reload(expectedLimit) {
      if (readThisTurn) return
      read(expectedLimit)
    },
    apply(usage) {
      version += 1
      inFlight = false
      set({ status: 'ready', usage })
    },
    clear(next) {
      viewer = ''
      version += 1
      inFlight = false
      if (state.status !== next.status) set(next)
    },
  }
}

const stores = new WeakMap<PlatformApi, UsageStore>()

/** The store of the page whose BFF client is `api` (every mount of a page shares its client). */
export function usageStoreOf(api: PlatformApi, readUsage: ReadUsage): UsageStore {
  let store = stores.get(api)
  if (store === undefined) {
    store = createUsageStore(readUsage)
    stores.set(api, store)
  }
  return store
}
