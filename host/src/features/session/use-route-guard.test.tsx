import { cleanup, render, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  definePlugin,
  entitlementsOf,
  type RegistrySnapshot,
  type SnapshotRemote,
} from '@tessera/contracts'
import { App } from '../../app/app.tsx'
import { createKernel } from '../../app/kernel.ts'
import type { EventSourceLike } from '../../lib/platform/live-events.ts'
import type { RemoteEntryRef } from '../remotes/remote-load-error.ts'

vi.mock('../remotes/federation.ts', () => {
  throw new Error('federation.ts must not be imported by the app under test')
})

const remote = (name: string, basePath: string, order: number): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath,
  nav: { label: name, order },
  slots: [],
  previous: null,
})

const snapshot: RegistrySnapshot = {
  generatedAt: '2025-01-01T00:00:00.000Z',
  remotes: [
    remote('ai', '/assistant', 10),
    remote('billing', '/billing', 20),
    remote('auth', '/auth', 30),
  ],
  diagnostics: [],
}

const signedInBody = {
  user: { id: 'u1', email: 'ada@example.test', displayName: 'Ada' },
  session: { id: 's1', recovery: false },
  entitlements: entitlementsOf(null),
}

class ControlledEventSource implements EventSourceLike {
  readyState = 1
  onopen: ((event: Event) => void) | null = null
  onerror: ((event: Event) => void) | null = null
  private readonly listeners: Array<(event: MessageEvent<string>) => void> = []
  addEventListener(_type: string, listener: (event: MessageEvent<string>) => void): void {
    this.listeners.push(listener)
  }
  close(): void {
    this.readyState = 2
  }
  emit(type: string, data: unknown): void {
    const body = JSON.stringify({ id: crypto.randomUUID(), type, at: 'now', data })
    for (const listener of this.listeners) listener(new MessageEvent('tessera', { data: body }))
  }
}

function boot(path: string, me: () => Promise<Response>) {
  window.history.replaceState(null, '', path)
  const sources: ControlledEventSource[] = []
  const loadModule = vi.fn(async (ref: RemoteEntryRef) =>
    definePlugin({
      name: ref.name,
      contract: 1,
      routes: {
        mount: (el) => {
          el.innerHTML = `<h1>${ref.name} page</h1>`
          return () => undefined
        },
      },
    }),
  )
  const kernel = createKernel({
    window,
    loadModule,
    sessionChannel: null,
    createEventSource: () => {
      const source = new ControlledEventSource()
      sources.push(source)
      return source
    },
    fetchImpl: async (url) => {
      const { pathname } = new URL(url)
      if (pathname === '/api/remotes') return Response.json(snapshot)
      if (pathname === '/api/me') return me()
      return Response.json({ accepted: true }, { status: 202 })
    },
  })
  render(<App kernel={kernel} showDiagnostics={false} />)
  return { kernel, loadModule, sources }
}

const here = () => `${window.location.pathname}${window.location.search}`

describe('the route guard in the app', () => {
  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  })
  afterEach(() => {
    cleanup()
  })

  it('sends a signed-out visitor of /billing to sign in, replacing the history entry', async () => {
    const pushState = vi.spyOn(window.history, 'pushState')
    boot('/billing', async () => Response.json({ user: null }))
    expect(await screen.findByRole('heading', { name: 'auth page' })).toBeTruthy()
    expect(here()).toBe('/auth/sign-in?next=%2Fbilling')
    expect(pushState).not.toHaveBeenCalled()
    // Billing's code may be fetched ahead (start-remotes), but its page is never mounted.
    expect(screen.queryByRole('heading', { name: 'billing page' })).toBeNull()
  })

  it('shows the frame with a loading state until the session is known, then the page', async () => {
    let answer: ((response: Response) => void) | undefined
    boot('/billing', () => new Promise<Response>((resolve) => (answer = resolve)))
    expect(await screen.findByText('Checking your session…')).toBeTruthy()
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy()
    expect(screen.queryByRole('heading', { name: 'auth page' })).toBeNull()
    expect(here()).toBe('/billing')
    // The loading state can show before the session is asked for (a loaded run once answered a
    // request not yet made, and the page waited for ever): answer once it has been asked.
    await waitFor(() => expect(answer).toBeDefined())
    answer?.(Response.json(signedInBody))
    expect(await screen.findByRole('heading', { name: 'billing page' })).toBeTruthy()
    expect(here()).toBe('/billing')
  })

  it('lets a signed-in visitor through, and sends them to sign in when the stream signs them out', async () => {
    const { sources } = boot('/assistant', async () => Response.json(signedInBody))
    expect(await screen.findByRole('heading', { name: 'ai page' })).toBeTruthy()
    await waitFor(() => expect(sources.length).toBeGreaterThan(0))
    sources.at(-1)?.emit('auth', { event: 'SIGNED_OUT', sessionId: 's1', user: null })
    expect(await screen.findByRole('heading', { name: 'auth page' })).toBeTruthy()
    expect(here()).toBe('/auth/sign-in?next=%2Fassistant')
  })
})
