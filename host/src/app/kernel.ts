import {
  CONTRACT_MAJOR,
  CONTRACT_MINOR,
  type ApiError,
  type Platform,
  type PlatformApi,
  subPathOf,
  type SnapshotRemote,
} from '@tessera/contracts'
import { createLoadOrder } from '../features/remotes/load-order.ts'
import { createLoadTimingReporter } from '../features/remotes/load-timing.ts'
import { createRemoteLoader } from '../features/remotes/loader.ts'
import type { RemoteEntryRef } from '../features/remotes/remote-load-error.ts'
import type { MountedPlatform, RemotesRuntime } from '../features/remotes/remotes-context.tsx'
import { createRemoteErrorReporter } from '../features/remotes/telemetry.ts'
import { createSlotHost, type SlotHost } from '../features/slots/slot-host.tsx'
import { env } from '../lib/env.ts'
import { createApi } from '../lib/platform/api.ts'
import { answeringFirstReads, takeFirstReads } from '../lib/platform/first-reads.ts'
import { createBffClient, type BffClient } from '../lib/platform/bff-client.ts'
import {
  createLiveEvents,
  type EventSourceFactory,
  type LiveEvents,
} from '../lib/platform/live-events.ts'
import { createNoticeStore, type NoticeStore } from '../lib/platform/notices.ts'
import {
  createSessionStore,
  meSessionSource,
  openSessionChannel,
  type SessionChannel,
  type SessionStore,
} from '../lib/platform/session.ts'
import { createThemeStore, type ThemeStore } from '../lib/platform/theme.ts'
import { createRouter, type Router } from '../lib/router/router.ts'

/** Everything the frame and the plugins share for the lifetime of the page. */
export interface Kernel {
  router: Router
  api: PlatformApi
  client: BffClient
  events: LiveEvents
  session: SessionStore
  theme: ThemeStore
  notices: NoticeStore
  remotes: RemotesRuntime
  /** `platform.slots`: the frame gives it the snapshot's remotes. */
  slots: SlotHost
}

export interface KernelOptions {
  window: Window
  /** Loads a remote's `./plugin` (federation.ts in the app; a fake in tests). */
  loadModule(ref: RemoteEntryRef): Promise<unknown>
  fetchImpl?: (input: string, init?: RequestInit) => Promise<Response>
  createEventSource?: EventSourceFactory
  /** Shares the session with the origin's other tabs; BroadcastChannel unless given (null: none). */
  sessionChannel?: SessionChannel | null
}

function safeStorage(win: Window): Storage | null {
  try {
    return win.localStorage
  } catch (error) {
    console.warn('localStorage is not available; the theme choice will not be remembered', error)
    return null
  }
}

/** Builds the platform kernel once at boot. */
export function createKernel({
  window: win,
  loadModule,
  fetchImpl,
  createEventSource,
  sessionChannel = openSessionChannel(),
}: KernelOptions): Kernel {
  const router = createRouter(win)
  // The session store, made below because it reads through this api, hears of revoked sessions.
  let onApiError: (error: ApiError) => void = () => undefined
  let onApiRequest: (path: string, method: string) => void = () => undefined
  const api = createApi({
    baseUrl: win.location.origin,
    onError: (error) => onApiError(error),
    onRequest: (path, method) => onApiRequest(path, method),
    // The page's first reads were answered in it (decision 050): their first GETs are answered there.
    fetchImpl: answeringFirstReads(
      fetchImpl ?? ((input, init) => fetch(input, init)),
      takeFirstReads(win.document),
      win.location.origin,
    ),
  })
  const client = createBffClient(api)
  const loadOrder = createLoadOrder()
  // Where the events stood when the session was first read: the stream opens from there, so the
  // events published between that read and the stream's opening reach the page too. It opens once
  // the page's own remote has shown (when the header's slots may load; a second at most): on
  // HTTP/1.1 it would otherwise hold one of the origin's six connections while the page's files
  // download.
  let firstReadAt: (position: string | null) => void = () => undefined
  const startFrom = new Promise<string | null>((resolve) => (firstReadAt = resolve)).then(
    async (position) => {
      await loadOrder.slotsMayLoad()
      return position
    },
  )
  const events = createLiveEvents({
    url: '/api/events',
    // The BFF greets each connection with it; plugins mount later and should see it too.
    replayTypes: ['connection.opened'],
    startFrom,
    ...(createEventSource ? { createEventSource } : {}),
  })
  const session = createSessionStore({
    source: meSessionSource(api, { onEventsPosition: (position) => firstReadAt(position) }),
    events,
    channel: sessionChannel,
    // The stream's topics follow the cookie it connected with: a new identity needs a new stream.
    onIdentityChange: () => events.reconnect(),
  })
  onApiError = (error) => session.noteApiError(error)
  onApiRequest = (path, method) => {
    // This tab signs out (or revokes a session): its own SIGNED_OUT is no news to tell about.
    if (
      (method === 'POST' && path.startsWith('/api/auth/sign-out')) ||
      (method === 'DELETE' && path.startsWith('/api/me/sessions/'))
    )
      session.noteOwnSignOut()
  }
  const theme = createThemeStore({
    root: win.document.documentElement,
    storage: safeStorage(win),
    matchMedia: typeof win.matchMedia === 'function' ? (query) => win.matchMedia(query) : null,
  })
  const notices = createNoticeStore()
  const report = createRemoteErrorReporter({ client })
  const loader = createRemoteLoader({
    loadModule,
    report,
    timeoutMs: env.remoteTimeoutMs,
    retryDelayMs: env.remoteRetryDelayMs,
  })

  // Plugins mount other plugins' slots (account.section) through the same outlets as the frame.
  const slots = createSlotHost(() => remotes, session.current)

  /**
   * A platform for one mount. Every subscription made through it is dropped when the plugin
   * unmounts, so a plugin that forgets to unsubscribe does not leak listeners into the page.
   */
  function platformFor(remote: SnapshotRemote, version: string): MountedPlatform {
    const subscriptions = new Set<() => void>()
    const track = (unsubscribe: () => void): (() => void) => {
      subscriptions.add(unsubscribe)
      return () => {
        subscriptions.delete(unsubscribe)
        unsubscribe()
      }
    }
    const currentSubPath = (): string =>
      subPathOf(router.current().pathname, remote.basePath) ?? '/'
    const platform: Platform = Object.freeze({
      contract: CONTRACT_MAJOR,
      contractMinor: CONTRACT_MINOR,
      remote: Object.freeze({ name: remote.name, version }),
      basePath: remote.basePath,
      route: Object.freeze({
        current: currentSubPath,
        subscribe(listener: (path: string) => void) {
          let last = currentSubPath()
          return track(
            router.subscribe((location) => {
              const next = subPathOf(location.pathname, remote.basePath)
              if (next !== null && next !== last) {
                last = next
                listener(next)
              }
            }),
          )
        },
      }),
      navigate: (to: string, options?: { replace?: boolean }) => router.navigate(to, options),
      api,
      events: Object.freeze({
        subscribe: (type: string, listener: Parameters<LiveEvents['subscribe']>[1]) =>
          track(events.subscribe(type, listener)),
        status: () => events.status(),
        onStatus: (listener: Parameters<LiveEvents['onStatus']>[0]) =>
          track(events.onStatus(listener)),
      }),
      session: Object.freeze({
        current: () => session.current(),
        subscribe: (listener: Parameters<SessionStore['subscribe']>[0]) =>
          track(session.subscribe(listener)),
        refresh: () => session.refresh(),
      }),
      notify: (notice: Parameters<Platform['notify']>[0]) => {
        notices.notify(notice, remote.name)
      },
      theme: Object.freeze({
        current: () => theme.current(),
        subscribe: (listener: Parameters<ThemeStore['subscribe']>[0]) =>
          track(theme.subscribe(listener)),
        tokens: theme.tokens,
      }),
      location: Object.freeze({
        href: () => {
          const { pathname, search } = router.current()
          return `${pathname}${search}`
        },
        origin: win.location.origin,
        assign: (url: string) => win.location.assign(url),
      }),
      slots: Object.freeze({ mount: slots.mount }),
    })
    return {
      platform,
      dispose() {
        for (const unsubscribe of [...subscriptions]) unsubscribe()
        subscriptions.clear()
      },
    }
  }

  const loadTiming = createLoadTimingReporter({
    send: (timings) => client.reportRemoteLoads(timings),
  })
  // A page left before the batch's delay still reports what it loaded.
  win.addEventListener('pagehide', () => loadTiming.flush())
  const remotes: RemotesRuntime = {
    loader,
    loadOrder,
    platformFor,
    report,
    loadTiming,
  }
  return { router, api, client, events, session, theme, notices, remotes, slots }
}
