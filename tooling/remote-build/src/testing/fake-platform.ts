import {
  CONTRACT_MAJOR,
  themeTokens,
  type AuthEventName,
  type LiveEvent,
  type LiveEventStatus,
  type Notice,
  type Platform,
  type SessionState,
  type ThemeName,
} from '@tessera/contracts'

export interface FakePlatformOptions {
  remote?: { name: string; version: string }
  basePath?: string
  route?: string
  session?: SessionState
  theme?: ThemeName
  /** Answers `platform.api.fetch`; by default every call fails, naming the path. */
  fetch?: (path: string, init?: RequestInit) => Promise<Response>
}

/** A Platform for plugin tests: records what the plugin asks of it and lets the test drive it. */
export interface FakePlatform extends Platform {
  notices: Notice[]
  navigations: { to: string; replace: boolean }[]
  emit(event: Omit<LiveEvent, 'id' | 'at'> & Partial<Pick<LiveEvent, 'id' | 'at'>>): void
  setSession(state: SessionState, event?: AuthEventName | null): void
  setRoute(path: string): void
  setTheme(theme: ThemeName): void
  setEventStatus(status: LiveEventStatus): void
  /** Listeners still subscribed to anything: zero after a clean unmount. */
  listenerCount(): number
}

class Listeners<T extends unknown[]> {
  readonly #set = new Set<(...args: T) => void>()
  add(listener: (...args: T) => void): () => void {
    this.#set.add(listener)
    return () => {
      this.#set.delete(listener)
    }
  }
  call(...args: T): void {
    for (const listener of [...this.#set]) listener(...args)
  }
  get size(): number {
    return this.#set.size
  }
}

/** Builds a fake Platform with sensible defaults (signed out, light theme, route `/`). */
export function createFakePlatform(options: FakePlatformOptions = {}): FakePlatform {
  const remote = options.remote ?? { name: 'test', version: '1.0.0' }
  let route = options.route ?? '/'
  let session: SessionState = options.session ?? { status: 'signed-out', user: null }
  let theme: ThemeName = options.theme ?? 'light'
  let eventStatus: LiveEventStatus = 'open'
  let nextEventId = 1

  const routeListeners = new Listeners<[string]>()
  const sessionListeners = new Listeners<[SessionState, AuthEventName | null]>()
  const themeListeners = new Listeners<[ThemeName]>()
  const statusListeners = new Listeners<[LiveEventStatus]>()
  const eventListeners = new Map<string, Listeners<[LiveEvent]>>()
  const eventListenersOf = (type: string) => {
    let listeners = eventListeners.get(type)
    if (listeners === undefined) {
      listeners = new Listeners<[LiveEvent]>()
      eventListeners.set(type, listeners)
    }
    return listeners
  }

  const platform: FakePlatform = {
    contract: CONTRACT_MAJOR,
    remote,
    basePath: options.basePath ?? `/${remote.name}`,
    route: {
      current: () => route,
      subscribe: (listener) => routeListeners.add(listener),
    },
    navigate(to, navigateOptions) {
      platform.navigations.push({ to, replace: navigateOptions?.replace ?? false })
    },
    api: {
      baseUrl: 'http://localhost:8787',
      fetch:
        options.fetch ??
        ((path) => Promise.reject(new Error(`fake platform: no API answer for ${path}`))),
    },
    events: {
      subscribe: (type, listener) => eventListenersOf(type).add(listener),
      status: () => eventStatus,
      onStatus: (listener) => statusListeners.add(listener),
    },
    session: {
      current: () => session,
      subscribe: (listener) => sessionListeners.add(listener),
      refresh: () => Promise.resolve(session),
    },
    notify(notice) {
      platform.notices.push(notice)
    },
    theme: {
      current: () => theme,
      subscribe: (listener) => themeListeners.add(listener),
      tokens: themeTokens,
    },

    notices: [],
    navigations: [],
    emit(partial) {
      const event: LiveEvent = {
        id: partial.id ?? String(nextEventId++),
        at: partial.at ?? new Date().toISOString(),
        type: partial.type,
        data: partial.data,
      }
      eventListeners.get(event.type)?.call(event)
      eventListeners.get('*')?.call(event)
    },
    setSession(state, event = null) {
      session = state
      sessionListeners.call(state, event)
    },
    setRoute(path) {
      route = path
      routeListeners.call(path)
    },
    setTheme(next) {
      theme = next
      themeListeners.call(next)
    },
    setEventStatus(status) {
      eventStatus = status
      statusListeners.call(status)
    },
    listenerCount() {
      let count =
        routeListeners.size + sessionListeners.size + themeListeners.size + statusListeners.size
      for (const listeners of eventListeners.values()) count += listeners.size
      return count
    },
  }
  return platform
}
