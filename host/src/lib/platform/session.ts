import { z } from 'zod/mini'
import {
  ApiError,
  AUTH_EVENT_TYPE,
  RESYNC_EVENT_TYPE,
  ENTITLEMENTS_EVENT_TYPE,
  entitlementsEventDataSchema,
  entitlementsSchema,
  authEventDataSchema,
  authEventNames,
  type AuthEventName,
  type LiveEvent,
  type PlatformEvents,
  type PlatformSession,
  type SessionState,
  type SignedOutReason,
  signedOutReasons,
} from '@tessera/contracts'
import { warnToConsole } from '../runtime.ts'
import { signedOutBecause, signedOutSnapshot } from './session-source.ts'
import type { SessionSnapshot, SessionSource } from './session-source.ts'

export {
  meSessionSource,
  snapshotFromMe,
  type SessionSnapshot,
  type SessionSource,
} from './session-source.ts'

/** The slice of `BroadcastChannel` the store uses, so tests can hand in a fake. */
export interface SessionChannel {
  postMessage(message: unknown): void
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void
  close(): void
}

/** The channel every tab of this origin shares; null where BroadcastChannel does not exist. */
export function openSessionChannel(
  scope: { BroadcastChannel?: typeof BroadcastChannel } = globalThis,
): SessionChannel | null {
  return typeof scope.BroadcastChannel === 'function'
    ? new scope.BroadcastChannel(SESSION_CHANNEL_NAME)
    : null
}

export const SESSION_CHANNEL_NAME = 'tessera.session'

const sessionStateSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('signed-out'),
    user: z.null(),
    reason: z.catch(z.optional(z.enum(signedOutReasons)), undefined),
  }),
  z.object({
    status: z.literal('signed-in'),
    user: z.object({ id: z.string(), email: z.string(), displayName: z.nullable(z.string()) }),
    entitlements: z.catch(z.optional(entitlementsSchema), undefined),
  }),
])

// Versioned: tabs running different host builds may share the channel after a deploy.
const channelMessageSchema = z.object({
  kind: z.literal('tessera.session/1'),
  state: sessionStateSchema,
  sessionId: z.nullable(z.string()),
  recovery: z.boolean(),
  event: z.nullable(z.enum(authEventNames)),
})
type ChannelMessage = z.infer<typeof channelMessageSchema>

export interface SessionStore extends PlatformSession {
  /** Reads the session (unless a read is under way or done) and listens for auth events. */
  start(): void
  /** A BFF call failed: a revoked, expired or missing session means this tab is signed out. */
  noteApiError(error: unknown): void
  /**
   * This tab is signing out (or revoking a session) itself: the SIGNED_OUT that follows is its
   * own doing, not news from another tab to tell the person about.
   */
  noteOwnSignOut(): void
  /** The BFF session this tab is on (for the tests and the live stream), null when signed out. */
  sessionId(): string | null
  /** Stops listening to the stream and to other tabs. */
  dispose(): void
}

export interface SessionStoreOptions {
  source: SessionSource
  events: PlatformEvents
  /** Shared with the other tabs of this origin; null to keep the session to this tab. */
  channel?: SessionChannel | null
  /**
   * Called when the signed-in identity changes (signed in, out, another account or session).
   * The live stream picks its topics from the cookie when it connects, so it must reconnect.
   */
  onIdentityChange?: () => void
  warn?: (message: string, detail?: unknown) => void
}

function sameState(a: SessionState, b: SessionState): boolean {
  if (a.status !== b.status) return false
  if (a.status !== 'signed-in' || b.status !== 'signed-in') return true
  return (
    a.user.id === b.user.id &&
    a.user.email === b.user.email &&
    a.user.displayName === b.user.displayName &&
    JSON.stringify(a.entitlements) === JSON.stringify(b.entitlements)
  )
}

function sameSnapshot(a: SessionSnapshot, b: SessionSnapshot): boolean {
  return sameState(a.state, b.state) && a.sessionId === b.sessionId && a.recovery === b.recovery
}

function identityOf(snapshot: SessionSnapshot): string {
  return snapshot.state.status === 'signed-in'
    ? `${snapshot.state.user.id}/${snapshot.sessionId ?? ''}`
    : snapshot.state.status
}

/**
 * The auth event a change stands for when nobody named one: a form that signed in and then
 * called `refresh()` still tells every plugin `SIGNED_IN`. The first read at start names none.
 */
function inferEvent(previous: SessionSnapshot, next: SessionSnapshot): AuthEventName | null {
  const before = previous.state
  const after = next.state
  if (before.status === 'loading') return null
  if (after.status === 'signed-out') return before.status === 'signed-in' ? 'SIGNED_OUT' : null
  if (after.status !== 'signed-in') return null
  if (next.recovery && (!previous.recovery || previous.sessionId !== next.sessionId)) {
    return 'PASSWORD_RECOVERY'
  }
  if (before.status !== 'signed-in' || before.user.id !== after.user.id) return 'SIGNED_IN'
  if (previous.sessionId !== next.sessionId) return 'SIGNED_IN'
  const userChanged =
    before.user.email !== after.user.email || before.user.displayName !== after.user.displayName
  // A new plan is not a change of the user: plugins see it as a new state with no auth event.
  return userChanged ? 'USER_UPDATED' : null
}

/**
 * The platform's session: one store per tab, read from the BFF at start, re-read on the auth
 * events of the live stream, mirrored to the other tabs of the origin over BroadcastChannel, and
 * handed to each plugin as `platform.session`.
 *
 * Reads are numbered: news that arrives while a read is under way (another tab signed out, the
 * stream said SIGNED_OUT) wins over what that older read answers.
 */
export function createSessionStore({
  source,
  events,
  channel = null,
  onIdentityChange,
  warn = warnToConsole,
}: SessionStoreOptions): SessionStore {
  let snapshot: SessionSnapshot = {
    state: { status: 'loading', user: null },
    sessionId: null,
    recovery: false,
  }
  let lastEvent: AuthEventName | null = null
  const listeners = new Set<(state: SessionState, event: AuthEventName | null) => void>()
  // Every read started and every piece of news gets the next tick; a read answers for the
  // moment it started, so it is dropped when something newer has been applied since.
  let tick = 0
  let newestApplied = 0
  // refresh() calls in the same turn (three plugins reacting to one thing) share one request.
  let batch: { promise: Promise<SessionState>; events: AuthEventName[] } | null = null
  let started = false
  const cleanups: Array<() => void> = []
  // Set by noteOwnSignOut until this tab is signed in again.
  let signingOutHere = false
  // Why the read noteApiError started will find the tab signed out (the cookie is gone by then).
  let pendingReason: SignedOutReason | undefined

  /** A reason as this tab tells it: none for a sign-out it made itself. */
  function reasonHere(reason: SignedOutReason | undefined): SignedOutReason | undefined {
    return signingOutHere && reason === 'other-tab' ? undefined : reason
  }

  function notify(event: AuthEventName | null): void {
    for (const listener of [...listeners]) {
      try {
        listener(snapshot.state, event)
      } catch (error) {
        warn('A session listener threw', error)
      }
    }
  }

  function apply(
    next: SessionSnapshot,
    named: AuthEventName | null,
    from: 'read' | 'news' | 'tab',
  ) {
    const previous = snapshot
    if (next.state.status === 'signed-in') signingOutHere = false
    const event = named ?? inferEvent(previous, next)
    const unchanged = sameSnapshot(previous, next)
    // The same news from two paths (this tab's stream and another tab) is told once.
    if (unchanged && (event === null || event === lastEvent)) return
    if (!unchanged) snapshot = next
    lastEvent = event
    if (previous.state.status !== 'loading' && identityOf(previous) !== identityOf(snapshot)) {
      onIdentityChange?.()
    }
    // What another tab told us is not told back to it.
    const state = snapshot.state
    if (from !== 'tab' && channel !== null && state.status !== 'loading') {
      const message: ChannelMessage = {
        kind: 'tessera.session/1',
        state,
        sessionId: snapshot.sessionId,
        recovery: snapshot.recovery,
        event,
      }
      try {
        channel.postMessage(message)
      } catch (error) {
        // A closed channel (the page is unloading) must not keep this tab from updating.
        warn('The session could not be shared with other tabs', error)
      }
    }
    notify(event)
  }

  /** News from outside a read: reads still under way answer for an older moment. */
  function applyNews(next: SessionSnapshot, event: AuthEventName | null, from: 'news' | 'tab') {
    tick += 1
    newestApplied = tick
    apply(next, event, from)
  }

  async function read(named: readonly AuthEventName[]): Promise<SessionState> {
    tick += 1
    const number = tick
    let next: SessionSnapshot
    try {
      next = await source()
    } catch (error) {
      warn('The session could not be read', error)
      // A failed read says nothing about the session; only the first one must decide something.
      if (snapshot.state.status !== 'loading' || number < newestApplied) return snapshot.state
      next = signedOutSnapshot
    }
    if (number < newestApplied) return snapshot.state
    newestApplied = number
    const reason = pendingReason
    pendingReason = undefined
    if (next.state.status === 'signed-out' && next.state.reason === undefined) {
      next = signedOutBecause(reasonHere(reason))
    }
    apply(next, named[0] ?? null, 'read')
    return snapshot.state
  }

  function refresh(event: AuthEventName | null = null): Promise<SessionState> {
    if (batch !== null) {
      if (event !== null) batch.events.push(event)
      return batch.promise
    }
    const events: AuthEventName[] = event === null ? [] : [event]
    const promise = Promise.resolve().then(() => {
      batch = null
      return read(events)
    })
    batch = { promise, events }
    return promise
  }

  function onAuthEvent(liveEvent: LiveEvent): void {
    const parsed = authEventDataSchema.safeParse(liveEvent.data)
    if (!parsed.success) {
      warn('An auth event did not match the contract; it was ignored', parsed.error.issues)
      return
    }
    const { event, sessionId, reason } = parsed.data
    // A session this tab has left (it signed in again) may still say goodbye on the old stream.
    if (sessionId !== null && snapshot.sessionId !== null && sessionId !== snapshot.sessionId) {
      return
    }
    if (event === 'SIGNED_OUT') {
      // Said by the BFF itself: no need to ask it again, and no wait before the tab reacts.
      const why =
        reason === 'revoked'
          ? 'other-device'
          : reason === 'expired'
            ? 'expired'
            : reason === 'signed_out'
              ? 'other-tab'
              : undefined
      applyNews(signedOutBecause(reasonHere(why)), 'SIGNED_OUT', 'news')
    } else if (event === 'TOKEN_REFRESHED') {
      // Nothing a plugin sees has changed, and every tab of the session hears it on its own.
      if (snapshot.state.status === 'signed-in') notify('TOKEN_REFRESHED')
    } else {
      void refresh(event)
    }
  }

  function onEntitlementsEvent(liveEvent: LiveEvent): void {
    const parsed = entitlementsEventDataSchema.safeParse(liveEvent.data)
    if (!parsed.success) {
      warn('An entitlements event did not match the contract; it was ignored', parsed.error.issues)
      return
    }
    const state = snapshot.state
    if (state.status !== 'signed-in') return
    // Entitlements of another workspace than the one this tab works in are not this tab's.
    const current = state.entitlements?.workspace?.id
    const news = parsed.data.entitlements.workspace?.id
    if (current !== undefined && news !== undefined && current !== news) return
    applyNews(
      { ...snapshot, state: { ...state, entitlements: parsed.data.entitlements } },
      null,
      'news',
    )
  }

  function onChannelMessage(message: MessageEvent): void {
    const parsed = channelMessageSchema.safeParse(message.data)
    if (!parsed.success) return
    const { state, sessionId, recovery, event } = parsed.data
    const next: SessionSnapshot = {
      state:
        state.status === 'signed-in'
          ? {
              status: 'signed-in',
              user: state.user,
              ...(state.entitlements ? { entitlements: state.entitlements } : {}),
            }
          : signedOutBecause(
              // Another tab's own sign-out is, for this one, a sign-out in another tab.
              reasonHere(state.reason ?? (event === 'SIGNED_OUT' ? 'other-tab' : undefined)),
            ).state,
      sessionId,
      recovery,
    }
    applyNews(next, event, 'tab')
  }

  return {
    start() {
      if (started) return
      started = true
      cleanups.push(events.subscribe(AUTH_EVENT_TYPE, onAuthEvent))
      cleanups.push(events.subscribe(ENTITLEMENTS_EVENT_TYPE, onEntitlementsEvent))
      // The stream could not be resumed: auth or plan news may have been missed, so read /api/me.
      cleanups.push(events.subscribe(RESYNC_EVENT_TYPE, () => void refresh()))
      if (channel !== null) {
        channel.addEventListener('message', onChannelMessage)
        cleanups.push(() => channel.removeEventListener('message', onChannelMessage))
      }
      // main.ts may have started the first read already, before the frame rendered.
      if (tick === 0 && batch === null) void refresh()
    },
    current: () => snapshot.state,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    refresh: () => refresh(),
    noteApiError(error) {
      if (!(error instanceof ApiError) || snapshot.state.status !== 'signed-in') return
      if (error.code === 'session_expired') pendingReason = 'expired'
      else if (error.code === 'session_revoked') pendingReason ??= 'other-device'
      else if (error.code !== 'unauthenticated') return
      void refresh()
    },
    noteOwnSignOut() {
      signingOutHere = true
    },
    sessionId: () => snapshot.sessionId,
    dispose() {
      for (const cleanup of cleanups.splice(0)) cleanup()
      channel?.close()
    },
  }
}
