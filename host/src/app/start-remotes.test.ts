import { describe, expect, it, vi } from 'vitest'
import type { RegistrySnapshot, SessionState, SnapshotRemote } from '@tessera/contracts'
import type { Kernel } from './kernel.ts'
import { startShownRemotes } from './start-remotes.ts'

const remote = (name: string, basePath: string, order: number, slots: SnapshotRemote['slots']) => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath,
  nav: { label: name, order },
  slots,
  previous: null,
})

const snapshot: RegistrySnapshot = {
  generatedAt: '2026-01-01T00:00:00.000Z',
  remotes: [
    remote('ai', '/assistant', 10, []),
    { ...remote('billing', '/billing', 20, ['header.end']), publicPaths: ['/plans'] },
    remote('auth', '/auth', 30, ['header.end']),
  ],
  diagnostics: [],
}

const signedIn: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.test', displayName: null },
}

const signedOut: SessionState = { status: 'signed-out', user: null }
const loading: SessionState = { status: 'loading', user: null }

function kernelAt(pathname: string, initial: SessionState = signedIn) {
  const load = vi.fn(async (_remote: SnapshotRemote) => ({ ok: true }) as never)
  const releaseSlots = vi.fn()
  let session = initial
  const listeners = new Set<(state: SessionState) => void>()
  const kernel = {
    router: { current: () => ({ pathname, search: '', hash: '' }) },
    remotes: { loader: { load }, loadOrder: { releaseSlots, slotsMayLoad: vi.fn() } },
    session: {
      current: () => session,
      subscribe: (listener: (state: SessionState) => void) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
    },
  } as unknown as Pick<Kernel, 'router' | 'remotes' | 'session'>
  const read = (state: SessionState) => {
    session = state
    for (const listener of [...listeners]) listener(state)
  }
  return { kernel, load, releaseSlots, read, listeners }
}

describe('startShownRemotes', () => {
  it("starts only the page's remote; the header slots wait for it", () => {
    const { kernel, load, releaseSlots } = kernelAt('/assistant/usage')
    startShownRemotes(kernel, snapshot)
    expect(load.mock.calls.map(([r]) => r.name)).toEqual(['ai'])
    expect(releaseSlots).not.toHaveBeenCalled()
  })

  it('starts the remote the start page redirects a signed-in user to', () => {
    const { kernel, load } = kernelAt('/')
    startShownRemotes(kernel, snapshot)
    expect(load.mock.calls.map(([r]) => r.name)).toEqual(['ai'])
  })

  it("starts nothing for a visitor's landing page: it lets the slots load once its text is painted", () => {
    const { kernel, load, releaseSlots } = kernelAt('/', signedOut)
    startShownRemotes(kernel, snapshot)
    expect(load).not.toHaveBeenCalled()
    expect(releaseSlots).not.toHaveBeenCalled()
  })

  it('starts nothing at / while the session is still being read', () => {
    const { kernel, load, releaseSlots } = kernelAt('/', loading)
    startShownRemotes(kernel, snapshot)
    expect(load).not.toHaveBeenCalled()
    expect(releaseSlots).not.toHaveBeenCalled()
  })

  it('lets the slots load at once on a page no remote owns', () => {
    const { kernel, load, releaseSlots } = kernelAt('/nowhere')
    startShownRemotes(kernel, snapshot)
    expect(load).not.toHaveBeenCalled()
    expect(releaseSlots).toHaveBeenCalledOnce()
  })

  it("waits for the session on a page for signed-in users, then starts that page's remote", () => {
    const { kernel, load, read, listeners } = kernelAt('/billing/invoices', loading)
    startShownRemotes(kernel, snapshot)
    expect(load).not.toHaveBeenCalled()
    read(loading)
    expect(load).not.toHaveBeenCalled()
    read(signedIn)
    expect(load.mock.calls.map(([r]) => r.name)).toEqual(['billing'])
    expect(listeners.size).toBe(0)
  })

  it("starts the sign-in page's remote, not the page's, for a visitor sent to sign in", () => {
    const { kernel, load, read } = kernelAt('/billing/invoices', loading)
    startShownRemotes(kernel, snapshot)
    read(signedOut)
    expect(load.mock.calls.map(([r]) => r.name)).toEqual(['auth'])

    const known = kernelAt('/assistant', signedOut)
    startShownRemotes(known.kernel, snapshot)
    expect(known.load.mock.calls.map(([r]) => r.name)).toEqual(['auth'])
  })

  it("starts a public page's remote for a visitor, and the sign-in page's own at once", () => {
    const plans = kernelAt('/billing/plans', loading)
    startShownRemotes(plans.kernel, snapshot)
    expect(plans.load.mock.calls.map(([r]) => r.name)).toEqual(['billing'])
    const signIn = kernelAt('/auth/sign-in', loading)
    startShownRemotes(signIn.kernel, snapshot)
    expect(signIn.load.mock.calls.map(([r]) => r.name)).toEqual(['auth'])
  })
})
