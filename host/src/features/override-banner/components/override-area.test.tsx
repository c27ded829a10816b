import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import { createApi } from '../../../lib/platform/api.ts'
import { createBffClient } from '../../../lib/platform/bff-client.ts'
import { createRouter, type RouterWindow } from '../../../lib/router/router.ts'
import { OverrideArea } from './override-area.tsx'

const billing: SnapshotRemote = {
  name: 'billing',
  version: '1.0.0',
  entryUrl: 'http://cdn.test/billing/1.0.0/assets/remoteEntry.js',
  contract: 1,
  basePath: '/billing',
  nav: { label: 'Billing', order: 1 },
  slots: [],
  previous: null,
}

const snapshotOf = (...remotes: SnapshotRemote[]): RegistrySnapshot => ({
  generatedAt: '2026-01-01T00:00:00.000Z',
  remotes,
  diagnostics: [],
})

const devEntry = 'http://localhost:5174/assets/remoteEntry.js'
const link = `?tab=plans&tessera-override=billing&tessera-override-url=${encodeURIComponent(devEntry)}&tessera-override-label=preview`

/** A router over a fake window at `url`, and the BFF client over a fake fetch. */
function setUp(url: string, respond: (request: { url: string; init: RequestInit }) => Response) {
  const parsed = new URL(url, 'http://app.test')
  const location = {
    pathname: parsed.pathname,
    search: parsed.search,
    hash: parsed.hash,
    origin: 'http://app.test',
  }
  const go = (to: string) => {
    const next = new URL(to, 'http://app.test')
    Object.assign(location, { pathname: next.pathname, search: next.search, hash: next.hash })
  }
  const win: RouterWindow = {
    location,
    history: {
      pushState: (_s, _t, to) => go(String(to)),
      replaceState: (_s, _t, to) => go(String(to)),
    },
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }
  const requests: { url: string; init: RequestInit }[] = []
  const api = createApi({
    baseUrl: 'http://app.test',
    fetchImpl: async (input, init = {}) => {
      const request = { url: input, init }
      requests.push(request)
      return respond(request)
    },
  })
  return { router: createRouter(win), client: createBffClient(api), location, requests }
}

const ok = () => Response.json({ allowed: true, origins: [], overrides: [] })

describe('OverrideArea', () => {
  afterEach(cleanup)

  it('asks before a preview link changes anything, then sets the override and reloads', async () => {
    const { router, client, location, requests } = setUp(`/billing${link}`, ok)
    const reload = vi.fn()
    render(
      <OverrideArea
        client={client}
        router={router}
        snapshot={snapshotOf(billing)}
        reload={reload}
      />,
    )
    const prompt = screen.getByRole('region', { name: 'Load a preview?' })
    expect(prompt.textContent).toContain(
      'This link loads billing from http://localhost:5174 — preview, in this browser only, until you stop it.',
    )
    expect(requests).toEqual([])

    fireEvent.click(screen.getByRole('button', { name: 'Load billing' }))
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    expect(requests).toHaveLength(1)
    expect(requests[0]?.url).toBe('http://app.test/api/remotes/overrides')
    expect(requests[0]?.init.method).toBe('POST')
    expect(JSON.parse(String(requests[0]?.init.body))).toEqual({
      remote: 'billing',
      entryUrl: devEntry,
      label: 'preview',
    })
    // The reload must not ask again: the link's parameters are gone, the others stay.
    expect(`${location.pathname}${location.search}`).toBe('/billing?tab=plans')
  })

  it('shows the server’s refusal and leaves the page as it was', async () => {
    const { router, client } = setUp(`/billing${link}`, () =>
      Response.json(
        {
          error: {
            code: 'validation_failed',
            message: 'http://localhost:5174 is not an origin overrides may load from here.',
            requestId: 'r1',
          },
        },
        { status: 422 },
      ),
    )
    const reload = vi.fn()
    render(
      <OverrideArea
        client={client}
        router={router}
        snapshot={snapshotOf(billing)}
        reload={reload}
      />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Load billing' }))
    expect((await screen.findByRole('alert')).textContent).toBe(
      'http://localhost:5174 is not an origin overrides may load from here.',
    )
    expect(reload).not.toHaveBeenCalled()
  })

  it('forgets the link when the person says not now', () => {
    const { router, client, location, requests } = setUp(`/billing${link}`, ok)
    render(<OverrideArea client={client} router={router} snapshot={snapshotOf(billing)} />)
    fireEvent.click(screen.getByRole('button', { name: 'Not now' }))
    expect(screen.queryByRole('region', { name: 'Load a preview?' })).toBeNull()
    expect(location.search).toBe('?tab=plans')
    expect(requests).toEqual([])
  })

  it('asks nothing when the link’s override is already on, and shows the banner', () => {
    const { router, client, location } = setUp(`/billing${link}`, ok)
    const on = { ...billing, entryUrl: devEntry, override: { label: 'preview' } }
    render(<OverrideArea client={client} router={router} snapshot={snapshotOf(on)} />)
    expect(screen.queryByRole('region', { name: 'Load a preview?' })).toBeNull()
    expect(screen.getByRole('region', { name: 'Overrides in this browser' })).toBeTruthy()
    expect(location.search).toBe('?tab=plans')
  })

  it('ends the override through the BFF when the banner’s button is pressed', async () => {
    const { router, client, requests } = setUp('/billing', ok)
    const reload = vi.fn()
    const on = { ...billing, entryUrl: devEntry, override: { label: 'preview' } }
    render(
      <OverrideArea client={client} router={router} snapshot={snapshotOf(on)} reload={reload} />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Stop override of billing' }))
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    expect(requests.map((r) => [r.init.method, r.url])).toEqual([
      ['DELETE', 'http://app.test/api/remotes/overrides/billing'],
    ])
  })
})
