import { describe, expect, it } from 'vitest'
import { ApiError, type AuthEventName, type LiveEvent, type SessionState } from '@tessera/contracts'
import { createApi } from './api.ts'
import { createSessionStore, meSessionSource, type SessionSource } from './session.ts'

function fakeEvents() {
  const listeners: Array<(event: LiveEvent) => void> = []
  return {
    events: {
      subscribe: (_type: string, listener: (event: LiveEvent) => void) => {
        listeners.push(listener)
        return () => undefined
      },
      status: () => 'open' as const,
      onStatus: () => () => undefined,
    },
    emit: (type: string) => {
      for (const listener of listeners) listener({ id: '1', type, at: 'now', data: null })
    },
  }
}

async function until(condition: () => boolean, deadlineMs = 2000): Promise<void> {
  const start = Date.now()
  while (!condition()) {
    if (Date.now() - start > deadlineMs) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const ada = { id: 'u1', email: 'ada@example.test', displayName: 'Ada' }

describe('createSessionStore', () => {
  it('is loading until the first read, then reports what the source says', async () => {
    const { events } = fakeEvents()
    const store = createSessionStore({
      source: async () => ({ status: 'signed-out', user: null }),
      events,
    })
    expect(store.current()).toEqual({ status: 'loading', user: null })
    store.start()
    await until(() => store.current().status !== 'loading')
    expect(store.current()).toEqual({ status: 'signed-out', user: null })
  })

  it('re-reads the session on an auth event and tells subscribers which one', async () => {
    const { events, emit } = fakeEvents()
    let signedIn = false
    const source: SessionSource = async () =>
      signedIn ? { status: 'signed-in', user: ada } : { status: 'signed-out', user: null }
    const store = createSessionStore({ source, events })
    const seen: Array<[SessionState['status'], AuthEventName | null]> = []
    store.subscribe((state, event) => seen.push([state.status, event]))
    store.start()
    await until(() => seen.length === 1)
    signedIn = true
    emit('auth.SIGNED_IN')
    emit('billing.plan_changed')
    await until(() => seen.length === 2)
    expect(seen).toEqual([
      ['signed-out', null],
      ['signed-in', 'SIGNED_IN'],
    ])
  })

  it('treats a failing source as signed out, with a warning', async () => {
    const { events } = fakeEvents()
    const warnings: string[] = []
    const store = createSessionStore({
      source: async () => {
        throw new ApiError('internal')
      },
      events,
      warn: (message) => warnings.push(message),
    })
    const state = await store.refresh()
    expect(state).toEqual({ status: 'signed-out', user: null })
    expect(warnings).toHaveLength(1)
  })
})

describe('meSessionSource', () => {
  const sourceAnswering = (response: Response) =>
    meSessionSource(createApi({ baseUrl: 'http://app.test', fetchImpl: async () => response }))

  it('reads a signed-out visitor when /api/me does not exist yet', async () => {
    const read = sourceAnswering(
      Response.json(
        {
          error: {
            code: 'not_found',
            message: 'There is nothing at this address.',
            requestId: 'r',
          },
        },
        { status: 404 },
      ),
    )
    expect(await read()).toEqual({ status: 'signed-out', user: null })
  })

  it('reads the user from /api/me', async () => {
    const read = sourceAnswering(Response.json({ user: ada }))
    expect(await read()).toEqual({ status: 'signed-in', user: ada })
  })

  it('passes other failures on', async () => {
    const read = sourceAnswering(
      Response.json({ error: { code: 'internal', message: 'x', requestId: 'r' } }, { status: 500 }),
    )
    await expect(read()).rejects.toMatchObject({ code: 'internal' })
  })
})
