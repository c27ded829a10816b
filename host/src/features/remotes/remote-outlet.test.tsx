import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  definePlugin,
  type MountFn,
  type Platform,
  type RemoteErrorReport,
  type SnapshotRemote,
} from '@tessera/contracts'
import { createLoadOrder } from './load-order.ts'
import { createRemoteLoader } from './loader.ts'
import { RemoteOutlet } from './remote-outlet.tsx'
import type { RemoteEntryRef } from './remote-load-error.ts'
import { RemotesContext, type RemotesRuntime } from './remotes-context.tsx'

const billing: SnapshotRemote = {
  name: 'billing',
  version: '1.0.0',
  entryUrl: 'http://cdn.test/billing/1.0.0/assets/remoteEntry.js',
  contract: 1,
  basePath: '/billing',
  nav: { label: 'Billing', order: 20 },
  slots: ['header.end'],
  previous: null,
}

function setup(loadModule: (ref: RemoteEntryRef) => Promise<unknown>) {
  const reports: RemoteErrorReport[] = []
  const disposed: string[] = []
  const runtime: RemotesRuntime = {
    // A cap far beyond any test: only the page's outlet lets slots go.
    loadOrder: createLoadOrder({ maxWaitMs: 60_000 }),
    loader: createRemoteLoader({
      loadModule,
      report: (report) => reports.push(report),
      timeoutMs: 200,
      retryDelayMs: 0,
      log: () => undefined,
    }),
    platformFor: (remote, version) => ({
      platform: { remote: { name: remote.name, version } } as Platform,
      dispose: () => disposed.push(remote.name),
    }),
    report: (report) => reports.push(report),
  }
  return { runtime, reports, disposed }
}

function renderOutlet(
  runtime: RemotesRuntime,
  target: Parameters<typeof RemoteOutlet>[0]['target'] = { kind: 'route' },
  remote = billing,
) {
  return render(
    <RemotesContext value={runtime}>
      <p>host header</p>
      <RemoteOutlet remote={remote} target={target} />
    </RemotesContext>,
  )
}

describe('RemoteOutlet', () => {
  afterEach(() => {
    cleanup()
  })

  it('shows a busy loading state, then mounts the plugin into its own element and unmounts it on leave', async () => {
    let resolve: (value: unknown) => void = () => undefined
    const unmount = vi.fn()
    const mount: MountFn = (el, platform) => {
      el.innerHTML = `<h1>Billing ${platform.remote.version}</h1>`
      return unmount
    }
    const { runtime, disposed } = setup(() => new Promise((r) => (resolve = r)))
    const view = renderOutlet(runtime)
    expect(screen.getByText('Loading Billing…')).toBeTruthy()
    expect(view.container.querySelector('[aria-busy="true"]')).not.toBeNull()

    resolve(definePlugin({ name: 'billing', contract: 1, routes: { mount } }))
    const heading = await screen.findByRole('heading', { name: 'Billing 1.0.0' })
    expect(heading.closest('[data-tessera-remote="billing"]')).not.toBeNull()
    expect(screen.queryByText('Loading Billing…')).toBeNull()

    view.unmount()
    // After the host's commit, in a microtask of its own.
    expect(unmount).not.toHaveBeenCalled()
    await Promise.resolve()
    expect(unmount).toHaveBeenCalledOnce()
    expect(disposed).toEqual(['billing'])
  })

  it('mounts the slot function for a slot', async () => {
    const { runtime } = setup(async () =>
      definePlugin({
        name: 'billing',
        contract: 1,
        slots: {
          'header.end': (el) => {
            el.textContent = 'Pro plan'
            return () => undefined
          },
        },
      }),
    )
    renderOutlet(runtime, { kind: 'slot', slot: 'header.end' })
    runtime.loadOrder.releaseSlots()
    expect(await screen.findByText('Pro plan')).toBeTruthy()
  })

  it('holds a slot back until the page has mounted, so the page loads first', async () => {
    const auth: SnapshotRemote = { ...billing, name: 'auth', basePath: '/auth', nav: null }
    const pages: Array<() => void> = []
    const loadModule = vi.fn(async (ref: RemoteEntryRef) => {
      if (ref.name === 'billing') await new Promise<void>((resolve) => pages.push(resolve))
      return definePlugin({
        name: ref.name,
        contract: 1,
        routes: {
          mount: (el) => {
            el.innerHTML = `<h1>${ref.name} page</h1>`
            return () => undefined
          },
        },
        slots: {
          'header.end': (el) => {
            el.textContent = `${ref.name} menu`
            return () => undefined
          },
        },
      })
    })
    const { runtime } = setup(loadModule)
    render(
      <RemotesContext value={runtime}>
        <RemoteOutlet remote={auth} target={{ kind: 'slot', slot: 'header.end' }} />
        <RemoteOutlet remote={billing} target={{ kind: 'route' }} />
      </RemotesContext>,
    )
    await waitFor(() => expect(pages).toHaveLength(1))
    expect(loadModule.mock.calls.map(([ref]) => ref.name)).toEqual(['billing'])
    expect(screen.getByText('Loading Auth…')).toBeTruthy()

    pages[0]?.()
    expect(await screen.findByRole('heading', { name: 'billing page' })).toBeTruthy()
    expect(await screen.findByText('auth menu')).toBeTruthy()
    expect(loadModule.mock.calls.map(([ref]) => ref.name)).toEqual(['billing', 'auth'])
  })

  it('lets the slots load when the page fails, so a broken page does not empty the header', async () => {
    const { runtime } = setup(async () => {
      throw new TypeError('Failed to fetch dynamically imported module')
    })
    let released = false
    void runtime.loadOrder.slotsMayLoad().then(() => {
      released = true
    })
    renderOutlet(runtime)
    expect(await screen.findByRole('button', { name: 'Try again' })).toBeTruthy()
    await waitFor(() => expect(released).toBe(true))
  })

  it('shows the fallback card when mount throws, reports it, and leaves the host standing', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const { runtime, reports } = setup(async () =>
      definePlugin({
        name: 'billing',
        contract: 1,
        routes: {
          mount: () => {
            throw new Error('boom in mount')
          },
        },
      }),
    )
    renderOutlet(runtime)
    expect(
      await screen.findByRole('heading', { name: 'Billing is unavailable right now' }),
    ).toBeTruthy()
    expect(screen.getByText(/stopped with an error while it was starting/)).toBeTruthy()
    expect(screen.getByText('host header')).toBeTruthy()
    expect(reports).toEqual([
      {
        remote: 'billing',
        version: '1.0.0',
        stage: 'mount',
        message: 'boom in mount',
        fellBack: true,
      },
    ])
  })

  it('shows the contract sentence for a plugin built for another contract', async () => {
    const loadModule = vi.fn(async () => definePlugin({ name: 'billing', contract: 2 }))
    const { runtime } = setup(loadModule)
    renderOutlet(runtime, { kind: 'route' }, { ...billing, contract: 2 })
    expect(
      await screen.findByText(
        'Billing was built for platform contract 2, but this app speaks contract 1. Its team needs to publish a compatible version.',
      ),
    ).toBeTruthy()
    expect(loadModule).not.toHaveBeenCalled()
  })

  it('tries the whole sequence again from the card', async () => {
    let up = false
    const loadModule = vi.fn(async () => {
      if (!up) throw new TypeError('Failed to fetch dynamically imported module')
      return definePlugin({
        name: 'billing',
        contract: 1,
        routes: {
          mount: (el) => {
            el.innerHTML = '<h1>Billing is back</h1>'
            return () => undefined
          },
        },
      })
    })
    const { runtime } = setup(loadModule)
    renderOutlet(runtime)
    const retry = await screen.findByRole('button', { name: 'Try again' })
    expect(screen.getByText(/could not be reached\. We tried again\./)).toBeTruthy()
    expect(loadModule).toHaveBeenCalledTimes(2)
    up = true
    fireEvent.click(retry)
    expect(await screen.findByRole('heading', { name: 'Billing is back' })).toBeTruthy()
    expect(loadModule).toHaveBeenCalledTimes(3)
  })

  it('says so when the plugin has no page for its route', async () => {
    const { runtime, reports } = setup(async () => definePlugin({ name: 'billing', contract: 1 }))
    renderOutlet(runtime)
    expect(await screen.findByRole('button', { name: 'Try again' })).toBeTruthy()
    await waitFor(() =>
      expect(reports).toEqual([expect.objectContaining({ stage: 'plugin', fellBack: true })]),
    )
  })
})
