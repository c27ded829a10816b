import { describe, expect, it, vi } from 'vitest'
import type { LiveEvent, RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import { changedRemotes, watchRemoteUpdates } from './remote-updates.ts'

const remote = (name: string, version = '1.0.0', label?: string): SnapshotRemote => ({
  name,
  version,
  entryUrl: `http://cdn.test/${name}/${version}/assets/remoteEntry.js`,
  contract: 1,
  basePath: `/${name}`,
  nav: label === undefined ? null : { label, order: 1 },
  slots: [],
  previous: null,
})

const snapshot = (...remotes: SnapshotRemote[]): RegistrySnapshot => ({
  generatedAt: new Date().toISOString(),
  remotes,
  diagnostics: [],
})

/** Live events by hand: `emit` delivers one to the subscribers of its type. */
function liveEvents() {
  const listeners = new Map<string, Set<(event: LiveEvent) => void>>()
  return {
    subscribe(type: string, listener: (event: LiveEvent) => void) {
      const set = listeners.get(type) ?? new Set()
      set.add(listener)
      listeners.set(type, set)
      return () => set.delete(listener)
    },
    emit(type: string) {
      const event = { id: '1', type, at: new Date().toISOString(), data: {} }
      for (const listener of listeners.get(type) ?? []) listener(event)
    },
  }
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('changedRemotes', () => {
  const loaded = snapshot(remote('auth'), remote('billing', '1.0.0', 'Billing'), remote('ai'))

  it('names nothing when the viewer would load the same', () => {
    expect(changedRemotes(loaded, snapshot(...loaded.remotes))).toEqual([])
  })

  it('names a remote promoted or rolled back, as the navigation does', () => {
    const now = snapshot(remote('auth'), remote('billing', '1.1.0', 'Billing'), remote('ai'))
    expect(changedRemotes(loaded, now)).toEqual(['Billing'])
  })

  it('names remotes that came or went', () => {
    const now = snapshot(remote('auth'), remote('billing', '1.0.0', 'Billing'), remote('docs'))
    expect(changedRemotes(loaded, now)).toEqual(['Ai', 'Docs'])
  })

  it('sees a new entry for the same version label', () => {
    const moved = {
      ...remote('auth'),
      entryUrl: 'http://cdn2.test/auth/1.0.0/assets/remoteEntry.js',
    }
    expect(changedRemotes(loaded, snapshot(moved, ...loaded.remotes.slice(1)))).toEqual(['Auth'])
  })
})

describe('watchRemoteUpdates', () => {
  it('reads the viewer’s snapshot on each registry change and says what changed', async () => {
    const events = liveEvents()
    const loaded = snapshot(remote('billing', '1.0.0', 'Billing'))
    let current = loaded
    const fetchSnapshot = vi.fn(async () => current)
    const onChange = vi.fn()
    const stop = watchRemoteUpdates({ events, loaded, fetchSnapshot, onChange })

    events.emit('auth.changed')
    await settled()
    expect(fetchSnapshot).not.toHaveBeenCalled()

    current = snapshot(remote('billing', '1.1.0', 'Billing'))
    events.emit('registry.changed')
    await settled()
    expect(onChange).toHaveBeenLastCalledWith(['Billing'])

    // Rolled back to what the page has: nothing to reload for any more.
    current = loaded
    events.emit('registry.changed')
    await settled()
    expect(onChange).toHaveBeenLastCalledWith([])

    stop()
    events.emit('registry.changed')
    await settled()
    expect(fetchSnapshot).toHaveBeenCalledTimes(2)
  })

  it('reads the snapshot when the live stream could not be resumed (resync)', async () => {
    const events = liveEvents()
    const loaded = snapshot(remote('billing', '1.0.0', 'Billing'))
    const fetchSnapshot = vi.fn(async () => snapshot(remote('billing', '1.2.0', 'Billing')))
    const onChange = vi.fn()
    const stop = watchRemoteUpdates({ events, loaded, fetchSnapshot, onChange })
    // A promote may have happened while this tab was away longer than the BFF keeps events.
    events.emit('resync')
    await settled()
    expect(onChange).toHaveBeenLastCalledWith(['Billing'])
    stop()
  })

  it('reads once more for changes that come while it reads, and reports only the last', async () => {
    const events = liveEvents()
    const loaded = snapshot(remote('billing'))
    const answers: ((value: RegistrySnapshot) => void)[] = []
    const fetchSnapshot = vi.fn(
      () => new Promise<RegistrySnapshot>((resolve) => answers.push(resolve)),
    )
    const onChange = vi.fn()
    watchRemoteUpdates({ events, loaded, fetchSnapshot, onChange })
    events.emit('registry.changed')
    events.emit('registry.changed')
    events.emit('registry.changed')
    expect(fetchSnapshot).toHaveBeenCalledTimes(1)
    answers[0]!(snapshot(remote('billing', '1.1.0')))
    await settled()
    expect(onChange).not.toHaveBeenCalled()
    expect(fetchSnapshot).toHaveBeenCalledTimes(2)
    answers[1]!(snapshot(remote('billing', '1.2.0')))
    await settled()
    expect(onChange).toHaveBeenCalledTimes(1)
    expect(onChange).toHaveBeenCalledWith(['Billing'])
  })

  it('waits for the next change when the snapshot cannot be read', async () => {
    const events = liveEvents()
    const loaded = snapshot(remote('billing'))
    const fetchSnapshot = vi
      .fn<() => Promise<RegistrySnapshot>>()
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValueOnce(snapshot(remote('billing', '1.1.0')))
    const onChange = vi.fn()
    const warn = vi.fn()
    watchRemoteUpdates({ events, loaded, fetchSnapshot, onChange, warn })
    events.emit('registry.changed')
    await settled()
    expect(warn).toHaveBeenCalledWith(
      'Could not read the registry after it changed',
      expect.any(Error),
    )
    expect(onChange).not.toHaveBeenCalled()
    events.emit('registry.changed')
    await settled()
    expect(onChange).toHaveBeenCalledWith(['Billing'])
  })
})
