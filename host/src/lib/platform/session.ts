import {
  ApiError,
  authEventNames,
  type AuthEventName,
  type PlatformApi,
  type PlatformEvents,
  type PlatformSession,
  type SessionState,
  type SessionUser,
} from '@tessera/contracts'
import { warnToConsole } from '../runtime.ts'

/** Where the session comes from. The identity work swaps this source; the store stays as it is. */
export type SessionSource = () => Promise<SessionState>

function asSessionUser(value: unknown): SessionUser | null {
  if (typeof value !== 'object' || value === null) return null
  const user = value as Record<string, unknown>
  if (typeof user.id !== 'string' || typeof user.email !== 'string') return null
  const displayName = typeof user.displayName === 'string' ? user.displayName : null
  return { id: user.id, email: user.email, displayName }
}

/**
 * Reads the session from `GET /api/me`. Until the identity issue adds that route the BFF answers
 * `not_found`, which means nobody can be signed in: signed-out, not an error.
 */
export function meSessionSource(api: PlatformApi): SessionSource {
  return async () => {
    try {
      const response = await api.fetch('/api/me')
      const body = (await response.json()) as { user?: unknown }
      const user = asSessionUser(body.user)
      return user ? { status: 'signed-in', user } : { status: 'signed-out', user: null }
    } catch (error) {
      if (
        error instanceof ApiError &&
        (error.code === 'not_found' || error.code === 'unauthenticated')
      ) {
        return { status: 'signed-out', user: null }
      }
      throw error
    }
  }
}

function isAuthEventName(value: string): value is AuthEventName {
  return (authEventNames as readonly string[]).includes(value)
}

/** The auth event a live event stands for: `SIGNED_IN` or `auth.SIGNED_IN`. */
function authEventOf(type: string): AuthEventName | null {
  const name = type.startsWith('auth.') ? type.slice('auth.'.length) : type
  return isAuthEventName(name) ? name : null
}

export interface SessionStore extends PlatformSession {
  /** Starts the first read and listens for auth events. */
  start(): void
}

export interface SessionStoreOptions {
  source: SessionSource
  events: PlatformEvents
  warn?: (message: string, detail?: unknown) => void
}

/**
 * The platform's session: one store per page, read once at start, re-read on every auth event
 * from the live stream, and handed to each plugin as `platform.session`.
 */
export function createSessionStore({
  source,
  events,
  warn = warnToConsole,
}: SessionStoreOptions): SessionStore {
  let state: SessionState = { status: 'loading', user: null }
  const listeners = new Set<(state: SessionState, event: AuthEventName | null) => void>()
  let inFlight: Promise<SessionState> | null = null
  let started = false

  function publish(next: SessionState, event: AuthEventName | null): void {
    state = next
    for (const listener of [...listeners]) listener(next, event)
  }

  async function refresh(event: AuthEventName | null = null): Promise<SessionState> {
    // Parallel refreshes (three plugins reacting to one sign-in) share one request.
    inFlight ??= source()
      .catch((error: unknown) => {
        warn('The session could not be read; treating the visitor as signed out', error)
        const signedOut: SessionState = { status: 'signed-out', user: null }
        return signedOut
      })
      .finally(() => {
        inFlight = null
      })
    const next = await inFlight
    publish(next, event)
    return next
  }

  return {
    start() {
      if (started) return
      started = true
      events.subscribe('*', (liveEvent) => {
        const authEvent = authEventOf(liveEvent.type)
        if (authEvent) void refresh(authEvent)
      })
      void refresh()
    },
    current: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    refresh: () => refresh(),
  }
}
