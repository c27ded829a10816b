import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  definePlugin,
  entitlementsOf,
  type RegistrySnapshot,
  type SnapshotRemote,
} from '@tessera/contracts'
import type { EventSourceLike } from '../lib/platform/live-events.ts'
import type { RemoteEntryRef } from '../features/remotes/remote-load-error.ts'
import { App } from './app.tsx'
import { createKernel } from './kernel.ts'

// The federation module must never be reached from these tests: the loader is injected.
vi.mock('../features/remotes/federation.ts', () => {
  throw new Error('federation.ts must not be imported by the app under test')
})

const remote = (
  name: string,
  basePath: string,
  label: string,
  order: number,
  slots: SnapshotRemote['slots'] = [],
): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath,
  nav: { label, order },
  slots,
  previous: null,
})

const snapshotOf = (
  remotes: SnapshotRemote[],
  diagnostics: RegistrySnapshot['diagnostics'] = [],
): RegistrySnapshot => ({
  generatedAt: '2025-01-01T00:00:00.000Z',
  remotes,
  diagnostics,
})

const navOnly = snapshotOf([
  remote('billing', '/billing', 'Billing', 20),
  remote('auth', '/auth', 'Account', 30),
  remote('ai', '/assistant', 'Assistant', 10),
])

const withSlots = snapshotOf([
  remote('billing', '/billing', 'Billing', 20, ['header.end']),
  remote('auth', '/auth', 'Account', 30, ['header.end']),
  remote('ai', '/assistant', 'Assistant', 10),
])

const pagePlugin = (name: string) =>
  definePlugin({
    name,
    contract: 1,
    routes: {
      mount: (el, platform) => {
        el.innerHTML = `<h1>${platform.remote.name} page</h1>`
        return () => undefined
      },
    },
    slots: {
      'header.end': (el) => {
        el.textContent = `${name} slot`
        return () => undefined
      },
    },
  })

const silentEventSource = (): EventSourceLike => ({
  readyState: 0,
  onopen: null,
  onerror: null,
  addEventListener: () => undefined,
  close: () => undefined,
})

function boot(
  path: string,
  answers: Array<() => Response>,
  {
    signedIn = true,
    createEventSource = silentEventSource,
    load = async (ref: RemoteEntryRef) => pagePlugin(ref.name),
  }: {
    signedIn?: boolean
    createEventSource?: () => EventSourceLike
    load?: (ref: RemoteEntryRef) => Promise<ReturnType<typeof pagePlugin>>
  } = {},
) {
  window.history.replaceState(null, '', path)
  const requests: string[] = []
  const loadModule = vi.fn(load)
  let snapshotCalls = 0
  const kernel = createKernel({
    window,
    loadModule,
    createEventSource,
    sessionChannel: null,
    fetchImpl: async (url) => {
      const { pathname } = new URL(url)
      requests.push(pathname)
      if (pathname === '/api/remotes') {
        const answer = answers[Math.min(snapshotCalls, answers.length - 1)]
        snapshotCalls += 1
        if (!answer) throw new Error('no answer configured')
        return answer()
      }
      if (pathname === '/api/me') {
        // Signed in unless a test says otherwise: the route guard has its own tests.
        if (!signedIn) return Response.json({ user: null })
        return Response.json({
          user: { id: 'u1', email: 'ada@example.test', displayName: 'Ada' },
          session: { id: 's1', recovery: false },
          entitlements: entitlementsOf(null),
        })
      }
      return Response.json({ accepted: true }, { status: 202 })
    },
  })
  render(<App kernel={kernel} showDiagnostics />)
  return { kernel, loadModule, requests }
}

describe('App', () => {
  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  })
  afterEach(() => {
    cleanup()
  })

  it('draws the navigation from the snapshot without loading any remote code', async () => {
    const { loadModule, requests } = boot('/nowhere', [() => Response.json(navOnly)])
    const nav = await screen.findByRole('navigation', { name: 'Main' })
    const links = within(nav).getAllByRole('link')
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Assistant', '/assistant'],
      ['Billing', '/billing'],
      ['Account', '/auth'],
    ])
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeTruthy()
    expect(requests[0]).toBe('/api/remotes')
    expect(loadModule).not.toHaveBeenCalled()
  })

  it('answers a restricted remote’s page with not allowed, without a nav entry or its code', async () => {
    const restricted: RegistrySnapshot = {
      ...navOnly,
      restricted: [{ name: 'console', basePath: '/console' }],
    }
    const { loadModule } = boot('/console/remotes/billing', [() => Response.json(restricted)])
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeTruthy()
    expect(screen.getByText(/for Tessera's operators only/)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Go to the start page' }).getAttribute('href')).toBe(
      '/assistant',
    )
    const nav = screen.getByRole('navigation', { name: 'Main' })
    expect(within(nav).queryByRole('link', { name: 'Console' })).toBeNull()
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull()
    expect(document.title).toBe('Not allowed · Tessera')
    expect(loadModule).not.toHaveBeenCalled()
  })

  it('loads the header slots at boot and a route only when it is shown', async () => {
    const { loadModule } = boot('/billing', [() => Response.json(withSlots)])
    expect(await screen.findByRole('heading', { name: 'billing page' })).toBeTruthy()
    expect(await screen.findByText('auth slot')).toBeTruthy()
    expect(await screen.findByText('billing slot')).toBeTruthy()
    const loaded = loadModule.mock.calls.map(([ref]) => ref.name).sort()
    // billing's route and slot share one load; the assistant is not shown, so it is not loaded.
    expect(loaded).toEqual(['auth', 'billing'])
  })

  it('opens the live stream once the page’s remote has shown, not while its files download', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const opened = vi.fn(silentEventSource)
    const { kernel } = boot('/billing', [() => Response.json(navOnly)], {
      createEventSource: opened,
      load: async (ref) => {
        await held
        return pagePlugin(ref.name)
      },
    })
    await screen.findByRole('navigation', { name: 'Main' })
    // The session has been read, so the position the stream starts from is known: before, the
    // stream opened now.
    await waitFor(() => expect(kernel.session.current().status).toBe('signed-in'))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(opened).not.toHaveBeenCalled()
    release()
    expect(await screen.findByRole('heading', { name: 'billing page' })).toBeTruthy()
    await waitFor(() => expect(opened).toHaveBeenCalledOnce())
  })

  it('redirects / to the first navigation item and marks it current', async () => {
    const { kernel } = boot('/', [() => Response.json(navOnly)])
    expect(await screen.findByRole('heading', { name: 'ai page' })).toBeTruthy()
    expect(kernel.router.current().pathname).toBe('/assistant')
    const nav = screen.getByRole('navigation', { name: 'Main' })
    expect(within(nav).getByRole('link', { name: 'Assistant' }).getAttribute('aria-current')).toBe(
      'page',
    )
    expect(document.title).toBe('Assistant · Tessera')
  })

  it('shows a signed-out visitor the landing page at /, with no remote code, and a footer', async () => {
    const { kernel, loadModule } = boot('/', [() => Response.json(navOnly)], { signedIn: false })
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Ask anything, and keep every answer' }),
    ).toBeTruthy()
    expect(kernel.router.current().pathname).toBe('/')
    expect(document.title).toBe('Tessera · An AI assistant, free to start')
    expect(loadModule).not.toHaveBeenCalled()
    const main = screen.getByRole('main')
    fireEvent.click(within(main).getAllByRole('link', { name: 'Start free' })[0]!)
    expect(kernel.router.current().pathname).toBe('/auth/sign-up')
    expect(await screen.findByRole('heading', { name: 'auth page' })).toBeTruthy()
  })

  it('opens the terms and privacy pages from the footer, signed out, without a remote', async () => {
    const { kernel, loadModule } = boot('/', [() => Response.json(navOnly)], { signedIn: false })
    const footer = await screen.findByRole('contentinfo')
    fireEvent.click(within(footer).getByRole('link', { name: 'Privacy' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Privacy' })).toBeTruthy()
    expect(kernel.router.current().pathname).toBe('/privacy')
    expect(document.title).toBe('Privacy · Tessera')
    fireEvent.click(within(screen.getByRole('contentinfo')).getByRole('link', { name: 'Terms' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Terms of use' })).toBeTruthy()
    expect(loadModule).not.toHaveBeenCalled()
  })

  it('draws no footer on a remote page', async () => {
    boot('/billing', [() => Response.json(navOnly)])
    expect(await screen.findByRole('heading', { name: 'billing page' })).toBeTruthy()
    expect(screen.queryByRole('contentinfo')).toBeNull()
  })

  it('moves to another remote when a navigation link is clicked', async () => {
    const { kernel } = boot('/assistant', [() => Response.json(navOnly)])
    const nav = await screen.findByRole('navigation', { name: 'Main' })
    fireEvent.click(within(nav).getByRole('link', { name: 'Billing' }))
    expect(await screen.findByRole('heading', { name: 'billing page' })).toBeTruthy()
    expect(kernel.router.current().pathname).toBe('/billing')
    expect(within(nav).getByRole('link', { name: 'Billing' }).getAttribute('aria-current')).toBe(
      'page',
    )
    expect(
      within(nav).getByRole('link', { name: 'Assistant' }).getAttribute('aria-current'),
    ).toBeNull()
  })

  it('shows a full-page error when the snapshot cannot be had, and recovers with Try again', async () => {
    boot('/assistant', [
      () =>
        Response.json(
          {
            error: {
              code: 'upstream_unavailable',
              message: 'A service we depend on is not answering.',
              requestId: 'r',
            },
          },
          { status: 503 },
        ),
      () => Response.json(navOnly),
    ])
    expect(await screen.findByRole('heading', { name: 'Tessera could not start' })).toBeTruthy()
    expect(screen.getByText('upstream_unavailable')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('navigation', { name: 'Main' })).toBeTruthy()
  })

  it('treats a snapshot that breaks the contract as a boot failure', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    boot('/assistant', [() => Response.json({ remotes: 'nope' })])
    expect(await screen.findByText(/sent a list of apps we could not read/)).toBeTruthy()
  })

  it('shows snapshot diagnostics in development builds', async () => {
    boot('/nowhere', [
      () =>
        Response.json(
          snapshotOf(navOnly.remotes, [{ remote: 'broken', message: 'entryUrl is not a URL' }]),
        ),
    ])
    const aside = await screen.findByRole('complementary', { name: 'Registry diagnostics' })
    expect(aside.textContent).toContain('entryUrl is not a URL')
  })

  it('collapses the navigation behind a menu button that says whether it is open', async () => {
    boot('/nowhere', [() => Response.json(navOnly)])
    const button = await screen.findByRole('button', { name: 'Menu' })
    const nav = screen.getByRole('navigation', { name: 'Main' })
    expect(button.getAttribute('aria-expanded')).toBe('false')
    expect(button.getAttribute('aria-controls')).toBe(nav.id)
    fireEvent.click(button)
    expect(button.getAttribute('aria-expanded')).toBe('true')
    expect(nav.getAttribute('data-open')).toBe('true')
    fireEvent.keyDown(document, { key: 'Escape' })
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'))
  })

  it('switches the theme from the header', async () => {
    const { kernel } = boot('/nowhere', [() => Response.json(navOnly)])
    const before = kernel.theme.current()
    const toggle = await screen.findByRole('button', { name: /Switch to (dark|light) theme/ })
    fireEvent.click(toggle)
    expect(kernel.theme.current()).not.toBe(before)
    expect(document.documentElement.dataset.theme).toBe(kernel.theme.current())
  })
})
