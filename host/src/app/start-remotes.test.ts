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
    remote('billing', '/billing', 20, ['header.end']),
    remote('auth', '/auth', 30, ['header.end']),
  ],
  diagnostics: [],
}

const signedIn: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.test', displayName: null },
}

function kernelAt(pathname: string, session: SessionState = signedIn) {
  const load = vi.fn(async (_remote: SnapshotRemote) => ({ ok: true }) as never)
  const releaseSlots = vi.fn()
  const kernel = {
    router: { current: () => ({ pathname, search: '', hash: '' }) },
    remotes: { loader: { load }, loadOrder: { releaseSlots, slotsMayLoad: vi.fn() } },
    session: { current: () => session },
  } as unknown as Pick<Kernel, 'router' | 'remotes' | 'session'>
  return { kernel, load, releaseSlots }
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

  it("starts no page remote for a visitor's landing page, and lets the slots load", () => {
    const { kernel, load, releaseSlots } = kernelAt('/', { status: 'signed-out', user: null })
    startShownRemotes(kernel, snapshot)
    expect(load).not.toHaveBeenCalled()
    expect(releaseSlots).toHaveBeenCalledOnce()
  })

  it('starts nothing at / while the session is still being read', () => {
    const { kernel, load, releaseSlots } = kernelAt('/', { status: 'loading', user: null })
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
})
