import { afterEach, describe, expect, it } from 'vitest'
import {
  ApiError,
  entitlementsOf,
  type AuthEventName,
  type LiveEvent,
  type SessionState,
} from '@tessera/contracts'
import { createApi } from './api.ts'
import {
  createSessionStore,
  meSessionSource,
  openSessionChannel,
  type SessionChannel,
  type SessionSnapshot,
  type SessionSource,
  type SessionStore,
} from './session.ts'
import { until } from '../testing/until.ts'

function fakeEvents() {
  const listeners = new Map<string, Array<(event: LiveEvent) => void>>()
  let next = 1
  return {
    events: {
      subscribe: (type: string, listener: (event: LiveEvent) => void) => {
        listeners.set(type, [...(listeners.get(type) ?? []), listener])
        return () => {
          listeners.set(
            type,
            (listeners.get(type) ?? []).filter((candidate) => candidate !== listener),
          )
        }
      },
      status: () => 'open' as const,
      onStatus: () => () => undefined,
    },
    emit(type: string, data: unknown) {
      const event: LiveEvent = { id: String(next++), type, at: 'now', data }
      for (const listener of listeners.get(type) ?? []) listener(event)
    },
  }
}

/** Channels of one fake origin: a message reaches every other channel, later, as in browsers. */
function fakeChannelHub() {
  const channels = new Set<{ listeners: Set<(event: MessageEvent) => void> }>()
  const posted: unknown[] = []
  const deliveries = new Set<Promise<void>>()
  return {
    posted,
    /** Resolves once every message posted so far (and any posted in reaction) was delivered. */
    async settled(): Promise<void> {
      while (deliveries.size > 0) await Promise.all([...deliveries])
    },
    open(): SessionChannel {
      const self = { listeners: new Set<(event: MessageEvent) => void>() }
      channels.add(self)
      return {
        postMessage(message) {
          posted.push(message)
          const copy = structuredClone(message)
          for (const other of channels) {
            if (other === self) continue
            const delivery = new Promise<void>((resolve) =>
              setTimeout(() => {
                for (const listener of other.listeners)
                  listener(new MessageEvent('message', { data: copy }))
                resolve()
              }, 0),
            )
            deliveries.add(delivery)
            void delivery.then(() => deliveries.delete(delivery))
          }
        },
        addEventListener: (_type, listener) => self.listeners.add(listener),
        removeEventListener: (_type, listener) => self.listeners.delete(listener),
        close: () => channels.delete(self),
      }
    },
  }
}

const ada = { id: 'u1', email: 'ada@example.test', displayName: 'Ada' }
const free = entitlementsOf(null)
const pro = entitlementsOf({ plan: 'pro', status: 'active' })
const signedIn = (
  user = ada,
  options: { sessionId?: string; recovery?: boolean } = {},
): SessionSnapshot => ({
  state: { status: 'signed-in', user, entitlements: free },
  sessionId: options.sessionId ?? 's1',
  recovery: options.recovery ?? false,
})
const signedOut: SessionSnapshot = {
  state: { status: 'signed-out', user: null },
  sessionId: null,
  recovery: false,
}

/** A source whose answer the test sets, counting its reads. */
function switchableSource(initial: SessionSnapshot) {
  let answer = initial
  let reads = 0
  const source: SessionSource = async () => {
    reads += 1
    return answer
  }
  return {
    source,
    set: (next: SessionSnapshot) => {
      answer = next
    },
    reads: () => reads,
  }
}

function record(store: SessionStore) {
  const seen: Array<[SessionState['status'], AuthEventName | null]> = []
  store.subscribe((state, event) => seen.push([state.status, event]))
  return seen
}

const stores: SessionStore[] = []
function track(store: SessionStore): SessionStore {
  stores.push(store)
  return store
}
afterEach(() => {
  for (const store of stores.splice(0)) store.dispose()
})

describe('createSessionStore', () => {
  it('is loading until the first read, then reports what the source says', async () => {
    const { events } = fakeEvents()
    const store = track(createSessionStore({ source: async () => signedOut, events }))
    expect(store.current()).toEqual({ status: 'loading', user: null })
    store.start()
    await until(() => store.current().status !== 'loading')
    expect(store.current()).toEqual({ status: 'signed-out', user: null })
  })

  it('keeps the entitlements /api/me gives', async () => {
    const { events } = fakeEvents()
    const store = track(createSessionStore({ source: async () => signedIn(), events }))
    await store.refresh()
    expect(store.current()).toEqual({
      status: 'signed-in',
      user: ada,
      entitlements: free,
    })
  })

  it('takes new entitlements from the live stream, with no auth event and no read', async () => {
    const { events, emit } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    store.start()
    await until(() => store.current().status === 'signed-in')
    const seen = record(store)
    emit('entitlements', { entitlements: pro })
    expect(store.current()).toEqual({ status: 'signed-in', user: ada, entitlements: pro })
    expect(seen).toEqual([['signed-in', null]])
    expect(source.reads()).toBe(1)
  })

  it('ignores entitlements of another workspace than the one the tab works in', async () => {
    const { events, emit } = fakeEvents()
    const personal = entitlementsOf(null, {
      id: 'w-personal',
      kind: 'personal',
      role: 'owner',
      seats: 1,
    })
    const team = entitlementsOf(
      { plan: 'team', status: 'active' },
      { id: 'w-team', kind: 'team', role: 'member', seats: 3 },
    )
    const store = track(
      createSessionStore({
        source: async () => ({
          ...signedIn(),
          state: { status: 'signed-in', user: ada, entitlements: personal },
        }),
        events,
      }),
    )
    store.start()
    await until(() => store.current().status === 'signed-in')
    emit('entitlements', { entitlements: team })
    expect(store.current()).toEqual({ status: 'signed-in', user: ada, entitlements: personal })
    const upgraded = { ...team, workspace: personal.workspace }
    emit('entitlements', { entitlements: upgraded })
    expect(store.current()).toEqual({ status: 'signed-in', user: ada, entitlements: upgraded })
  })

  it('reads /api/me again when the live stream could not be resumed (resync)', async () => {
    const { events, emit } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    store.start()
    await until(() => store.current().status === 'signed-in')
    // Signed out elsewhere while this tab's stream was away longer than the BFF keeps events.
    source.set(signedOut)
    emit('resync', { lastEventId: '7' })
    await until(() => store.current().status === 'signed-out')
    expect(source.reads()).toBe(2)
  })

  it('ignores an entitlements event that does not match the contract', async () => {
    const { events, emit } = fakeEvents()
    const warnings: string[] = []
    const store = track(
      createSessionStore({
        source: async () => signedIn(),
        events,
        warn: (message) => warnings.push(message),
      }),
    )
    store.start()
    await until(() => store.current().status === 'signed-in')
    emit('entitlements', { entitlements: { plan: 'platinum' } })
    expect(store.current()).toEqual({ status: 'signed-in', user: ada, entitlements: free })
    expect(warnings).toEqual(['An entitlements event did not match the contract; it was ignored'])
  })

  it('names SIGNED_IN when a refresh after a sign-in form finds a user', async () => {
    const { events } = fakeEvents()
    const source = switchableSource(signedOut)
    const store = track(createSessionStore({ source: source.source, events }))
    const seen = record(store)
    await store.refresh()
    source.set(signedIn())
    await store.refresh()
    expect(seen).toEqual([
      ['signed-out', null],
      ['signed-in', 'SIGNED_IN'],
    ])
  })

  it('names PASSWORD_RECOVERY when the new session came from a recovery link', async () => {
    const { events } = fakeEvents()
    const source = switchableSource(signedOut)
    const store = track(createSessionStore({ source: source.source, events }))
    const seen = record(store)
    await store.refresh()
    source.set(signedIn(ada, { recovery: true }))
    await store.refresh()
    expect(seen.at(-1)).toEqual(['signed-in', 'PASSWORD_RECOVERY'])
  })

  it('publishes nothing when a refresh finds what it knew', async () => {
    const { events } = fakeEvents()
    const store = track(createSessionStore({ source: async () => signedIn(), events }))
    const seen = record(store)
    await store.refresh()
    const first = store.current()
    await store.refresh()
    expect(seen).toHaveLength(1)
    // The same object, so React's useSyncExternalStore does not render again.
    expect(store.current()).toBe(first)
  })

  it('re-reads the session on an auth event and tells subscribers which one', async () => {
    const { events, emit } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    const seen = record(store)
    store.start()
    await until(() => seen.length === 1)
    source.set(signedIn({ ...ada, displayName: 'Countess' }))
    emit('auth', { event: 'USER_UPDATED', sessionId: null, user: null })
    emit('billing.plan_changed', { event: 'USER_UPDATED' })
    await until(() => seen.length === 2)
    expect(seen).toEqual([
      ['signed-in', null],
      ['signed-in', 'USER_UPDATED'],
    ])
    expect(store.current().user?.displayName).toBe('Countess')
  })

  it('signs out at once on SIGNED_OUT from the stream, without asking the BFF', async () => {
    const { events, emit } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    const seen = record(store)
    store.start()
    await until(() => seen.length === 1)
    emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null })
    expect(store.current()).toEqual({ status: 'signed-out', user: null })
    expect(seen.at(-1)).toEqual(['signed-out', 'SIGNED_OUT'])
    expect(source.reads()).toBe(1)
  })

  it('keeps why the stream signed the tab out: another device, another tab, or expiry', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['revoked', 'other-device'],
      ['signed_out', 'other-tab'],
      ['expired', 'expired'],
    ]
    for (const [reason, expected] of cases) {
      const { events, emit } = fakeEvents()
      const store = track(
        createSessionStore({ source: switchableSource(signedIn()).source, events }),
      )
      store.start()
      await until(() => store.current().status === 'signed-in')
      emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null, reason })
      expect(store.current()).toEqual({ status: 'signed-out', user: null, reason: expected })
    }
  })

  it('tells nothing of a sign-out this tab made itself, whichever way the news arrives', async () => {
    const { events, emit } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    store.start()
    await until(() => store.current().status === 'signed-in')
    store.noteOwnSignOut()
    // The stream's SIGNED_OUT can come before the sign-out's own answer.
    emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null, reason: 'signed_out' })
    expect(store.current()).toEqual({ status: 'signed-out', user: null })
  })

  it('says the session expired when a BFF call said so, though the read finds no cookie', async () => {
    const { events } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    await store.refresh()
    source.set(signedOut)
    store.noteApiError(new ApiError('session_expired'))
    await until(() => store.current().status === 'signed-out')
    expect(store.current()).toEqual({ status: 'signed-out', user: null, reason: 'expired' })
  })

  it('ignores the goodbye of a session the tab has already left', async () => {
    const { events, emit } = fakeEvents()
    const store = track(
      createSessionStore({ source: async () => signedIn(ada, { sessionId: 's2' }), events }),
    )
    store.start()
    await until(() => store.current().status === 'signed-in')
    emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null })
    expect(store.current().status).toBe('signed-in')
  })

  it('passes TOKEN_REFRESHED on to subscribers without a read', async () => {
    const { events, emit } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    const seen = record(store)
    store.start()
    await until(() => seen.length === 1)
    emit('auth', { event: 'TOKEN_REFRESHED', sessionId: 's1', user: null })
    expect(seen.at(-1)).toEqual(['signed-in', 'TOKEN_REFRESHED'])
    expect(source.reads()).toBe(1)
  })

  it('ignores an auth event that breaks the contract, with a warning', async () => {
    const { events, emit } = fakeEvents()
    const warnings: string[] = []
    const store = track(
      createSessionStore({
        source: async () => signedIn(),
        events,
        warn: (message) => warnings.push(message),
      }),
    )
    store.start()
    await until(() => store.current().status === 'signed-in')
    emit('auth', { event: 'SIGNED_SIDEWAYS' })
    expect(store.current().status).toBe('signed-in')
    expect(warnings).toEqual([expect.stringContaining('did not match the contract')])
  })

  it('shares one request between refreshes asked for in the same turn', async () => {
    const { events } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    const states = await Promise.all([store.refresh(), store.refresh(), store.refresh()])
    expect(source.reads()).toBe(1)
    expect(new Set(states).size).toBe(1)
  })

  it('asks again for a refresh that comes after a read started, so a sign-in is never missed', async () => {
    const { events } = fakeEvents()
    let release: () => void = () => undefined
    let answer = signedOut
    let reads = 0
    const source: SessionSource = async () => {
      reads += 1
      const snapshot = answer
      if (reads === 1) await new Promise<void>((resolve) => (release = resolve))
      return snapshot
    }
    const store = track(createSessionStore({ source, events }))
    const boot = store.refresh()
    await until(() => reads === 1)
    // The sign-in form's request succeeded while the boot read was still out.
    answer = signedIn()
    const afterSignIn = store.refresh()
    release()
    await Promise.all([boot, afterSignIn])
    expect(reads).toBe(2)
    expect(store.current().status).toBe('signed-in')
  })

  it('does not let a read that started before a sign-out undo it', async () => {
    const { events, emit } = fakeEvents()
    let release: () => void = () => undefined
    let reads = 0
    let signedOutNow = false
    const source: SessionSource = async () => {
      reads += 1
      const answer = signedOutNow ? signedOut : signedIn()
      if (reads === 2) await new Promise<void>((resolve) => (release = resolve))
      return answer
    }
    const store = track(createSessionStore({ source, events }))
    const seen = record(store)
    store.start()
    await until(() => store.current().status === 'signed-in')
    emit('auth', { event: 'USER_UPDATED', sessionId: null, user: null })
    await until(() => reads === 2)
    emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null })
    signedOutNow = true
    release()
    // A read started after the sign-out; the older one finishes first and must change nothing.
    await store.refresh()
    const afterSignOut = seen.slice(seen.findIndex(([, event]) => event === 'SIGNED_OUT'))
    expect(afterSignOut).toEqual([['signed-out', 'SIGNED_OUT']])
    expect(store.current().status).toBe('signed-out')
  })

  it('treats a failing first read as signed out, with a warning', async () => {
    const { events } = fakeEvents()
    const warnings: string[] = []
    const store = track(
      createSessionStore({
        source: async () => {
          throw new ApiError('internal')
        },
        events,
        warn: (message) => warnings.push(message),
      }),
    )
    const state = await store.refresh()
    expect(state).toEqual({ status: 'signed-out', user: null })
    expect(warnings).toHaveLength(1)
  })

  it('keeps a known session when a later read fails', async () => {
    const { events } = fakeEvents()
    let fail = false
    const store = track(
      createSessionStore({
        source: async () => {
          if (fail) throw new ApiError('upstream_unavailable')
          return signedIn()
        },
        events,
        warn: () => undefined,
      }),
    )
    await store.refresh()
    fail = true
    expect((await store.refresh()).status).toBe('signed-in')
  })

  it('re-reads when a BFF call says the session was revoked', async () => {
    const { events } = fakeEvents()
    const source = switchableSource(signedIn())
    const store = track(createSessionStore({ source: source.source, events }))
    await store.refresh()
    source.set(signedOut)
    store.noteApiError(new ApiError('validation_failed'))
    expect(source.reads()).toBe(1)
    store.noteApiError(new ApiError('session_revoked'))
    await until(() => store.current().status === 'signed-out')
  })

  it('asks for a new stream when the identity changes, not for profile edits', async () => {
    const { events } = fakeEvents()
    const source = switchableSource(signedOut)
    let reconnects = 0
    const store = track(
      createSessionStore({
        source: source.source,
        events,
        onIdentityChange: () => (reconnects += 1),
      }),
    )
    await store.refresh()
    expect(reconnects).toBe(0)
    source.set(signedIn())
    await store.refresh()
    expect(reconnects).toBe(1)
    source.set(signedIn({ ...ada, displayName: 'Countess' }))
    await store.refresh()
    expect(reconnects).toBe(1)
    source.set(signedIn(ada, { sessionId: 's9' }))
    await store.refresh()
    expect(reconnects).toBe(2)
    source.set(signedOut)
    await store.refresh()
    expect(reconnects).toBe(3)
  })
})

describe('the session across tabs', () => {
  function twoTabs(initial: SessionSnapshot) {
    const hub = fakeChannelHub()
    const server = switchableSource(initial)
    const open = () => {
      const { events, emit } = fakeEvents()
      let reconnects = 0
      const store = track(
        createSessionStore({
          source: server.source,
          events,
          channel: hub.open(),
          onIdentityChange: () => (reconnects += 1),
        }),
      )
      const seen = record(store)
      store.start()
      return { store, seen, emit, reconnects: () => reconnects }
    }
    return { hub, server, a: open(), b: open() }
  }

  it('signs the other tab out as soon as one tab signs out', async () => {
    const { server, a, b } = twoTabs(signedIn())
    await until(() => a.store.current().status === 'signed-in')
    await until(() => b.store.current().status === 'signed-in')
    const readsBefore = server.reads()
    server.set(signedOut)
    await a.store.refresh()
    await until(() => b.store.current().status === 'signed-out')
    expect(b.seen.at(-1)).toEqual(['signed-out', 'SIGNED_OUT'])
    // A signed out itself; for B it happened in another tab, and its sign-in page says so.
    expect(a.store.current()).toEqual({ status: 'signed-out', user: null })
    expect(b.store.current()).toEqual({ status: 'signed-out', user: null, reason: 'other-tab' })
    // B took A's word for it and reconnects its stream, without asking the BFF itself.
    expect(server.reads()).toBe(readsBefore + 1)
    expect(b.reconnects()).toBe(1)
  })

  it('signs the other tab in as soon as one tab signs in', async () => {
    const { server, a, b } = twoTabs(signedOut)
    await until(() => b.store.current().status === 'signed-out')
    server.set(signedIn())
    await a.store.refresh()
    await until(() => b.store.current().status === 'signed-in')
    expect(b.store.current()).toEqual(a.store.current())
    expect(b.seen.at(-1)).toEqual(['signed-in', 'SIGNED_IN'])
  })

  it('tells each tab once when its own stream and the other tab bring the same news', async () => {
    const { hub, a, b } = twoTabs(signedIn())
    await until(() => a.store.current().status === 'signed-in')
    await until(() => b.store.current().status === 'signed-in')
    const postedBefore = hub.posted.length
    a.emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null })
    b.emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null })
    await hub.settled()
    expect(a.seen.filter(([, event]) => event === 'SIGNED_OUT')).toHaveLength(1)
    expect(b.seen.filter(([, event]) => event === 'SIGNED_OUT')).toHaveLength(1)
    // Each tab told the other once; neither told back what it heard from the other.
    expect(hub.posted.length - postedBefore).toBe(2)
  })

  it('ignores channel messages that are not session messages', async () => {
    const hub = fakeChannelHub()
    const { events } = fakeEvents()
    const store = track(
      createSessionStore({ source: async () => signedIn(), events, channel: hub.open() }),
    )
    store.start()
    await until(() => store.current().status === 'signed-in')
    hub.open().postMessage({ kind: 'tessera.session/1', state: { status: 'signed-out' } })
    hub.open().postMessage('hello')
    await hub.settled()
    expect(store.current().status).toBe('signed-in')
  })

  it('works over a real BroadcastChannel', async () => {
    const first = openSessionChannel()
    const second = openSessionChannel()
    if (first === null || second === null) throw new Error('this runtime has no BroadcastChannel')
    const { events } = fakeEvents()
    const server = switchableSource(signedIn())
    const a = track(createSessionStore({ source: server.source, events, channel: first }))
    const b = track(createSessionStore({ source: server.source, events, channel: second }))
    a.start()
    b.start()
    await until(() => b.current().status === 'signed-in')
    server.set(signedOut)
    await a.refresh()
    await until(() => b.current().status === 'signed-out')
  })
})

describe('meSessionSource', () => {
  const sourceAnswering = (response: Response) =>
    meSessionSource(createApi({ baseUrl: 'http://app.test', fetchImpl: async () => response }))

  it('reads a signed-out visitor from { user: null }', async () => {
    const read = sourceAnswering(Response.json({ user: null }))
    expect(await read()).toEqual(signedOut)
  })

  it('reads why a session ended from /api/me, for a tab that missed the news', async () => {
    const revoked = sourceAnswering(Response.json({ user: null, ended: 'revoked' }))
    expect((await revoked()).state).toEqual({
      status: 'signed-out',
      user: null,
      reason: 'other-device',
    })
    const expired = sourceAnswering(Response.json({ user: null, ended: 'expired' }))
    expect((await expired()).state).toEqual({ status: 'signed-out', user: null, reason: 'expired' })
  })

  it('reads the user, session and entitlements from /api/me', async () => {
    const read = sourceAnswering(
      Response.json({
        user: { ...ada, emailConfirmedAt: '2025-01-01T00:00:00Z', pendingEmail: null },
        profile: { displayName: 'Ada' },
        session: { id: 's7', recovery: true, createdAt: '2025-01-01T00:00:00Z' },
        entitlements: pro,
      }),
    )
    expect(await read()).toEqual({
      state: { status: 'signed-in', user: ada, entitlements: pro },
      sessionId: 's7',
      recovery: true,
    })
  })

  it('reads a signed-out visitor when /api/me does not exist', async () => {
    const read = sourceAnswering(
      Response.json(
        { error: { code: 'not_found', message: 'Nothing here.', requestId: 'r' } },
        { status: 404 },
      ),
    )
    expect(await read()).toEqual(signedOut)
  })

  it('refuses a body that is not a session', async () => {
    const read = sourceAnswering(Response.json({ user: { id: 1 } }))
    await expect(read()).rejects.toThrow(/could not read/)
  })

  it('passes other failures on', async () => {
    const read = sourceAnswering(
      Response.json({ error: { code: 'internal', message: 'x', requestId: 'r' } }, { status: 500 }),
    )
    await expect(read()).rejects.toMatchObject({ code: 'internal' })
  })

  it('tells where the live events stood at each read, and null when the read says nothing or fails', async () => {
    const heard: Array<string | null> = []
    const onEventsPosition = (position: string | null) => heard.push(position)
    const answering = (response: Response) =>
      meSessionSource(createApi({ baseUrl: 'http://app.test', fetchImpl: async () => response }), {
        onEventsPosition,
      })
    await answering(
      Response.json({ user: null }, { headers: { 'Tessera-Events-Position': '42' } }),
    )()
    await answering(Response.json({ user: null }))()
    await expect(
      answering(
        Response.json(
          { error: { code: 'internal', message: 'x', requestId: 'r' } },
          { status: 500 },
        ),
      )(),
    ).rejects.toMatchObject({ code: 'internal' })
    expect(heard).toEqual(['42', null, null])
  })
})
