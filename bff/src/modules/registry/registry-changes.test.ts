import type { LiveEvent } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createManualClock, remoteEntry, waitFor } from '../../testing/app.ts'
import { createEventHub, createLiveEvent } from '../events/event-hub.ts'
import { publishRegistryChanges } from './registry-changes.ts'
import type { RegistrySource } from './registry.ts'

function watchableRegistry(initial: unknown) {
  let content = initial
  let reads = 0
  const listeners = new Set<() => void>()
  const source: RegistrySource = {
    read: async () => {
      reads += 1
      return content
    },
    watch: (onChange) => {
      listeners.add(onChange)
      return () => listeners.delete(onChange)
    },
  }
  return {
    source,
    listeners,
    change(next: unknown) {
      content = next
      for (const listener of listeners) listener()
    },
    reads: () => reads,
    /** Changes the content without telling the watchers (a commit they have not seen yet). */
    set(next: unknown) {
      content = next
    },
  }
}

function setup(initial: unknown) {
  const registry = watchableRegistry(initial)
  const hub = createEventHub()
  const events: LiveEvent[] = []
  hub.subscribe({ topics: ['broadcast'], onEvent: (event) => events.push(event) })
  const deps = {
    registry: registry.source,
    hub,
    logger: createLogger({ level: 'silent' }),
    clock: createManualClock(),
  }
  return { registry, events, deps }
}

describe('publishRegistryChanges', () => {
  it('publishes registry.changed with the new versions when the remotes change', async () => {
    const { registry, events, deps } = setup({ remotes: [remoteEntry({ version: '1.0.0' })] })
    await publishRegistryChanges(deps)
    registry.change({ remotes: [remoteEntry({ version: '1.1.0' })] })
    const event = await waitFor(() => events[0], { what: 'registry.changed' })
    expect(event).toMatchObject({
      type: 'registry.changed',
      data: { remotes: [{ name: 'billing', version: '1.1.0' }] },
    })
  })

  it('stays quiet when the file was touched but its remotes are the same', async () => {
    const { registry, events, deps } = setup({ remotes: [remoteEntry()] })
    await publishRegistryChanges(deps)
    registry.change({ remotes: [remoteEntry()] })
    registry.change({ remotes: [remoteEntry({ version: '2.0.0' })] })
    await waitFor(() => events[0], { what: 'the second change' })
    expect(
      events.map((event) => (event.data as { remotes: { version: string }[] }).remotes[0]?.version),
    ).toEqual(['2.0.0'])
  })

  it('does not announce again a change another replica announced through the outbox', async () => {
    const { registry, events, deps } = setup({ remotes: [remoteEntry({ version: '1.0.0' })] })
    await publishRegistryChanges(deps)
    // What the relay delivers: the event with its outbox id, before the invalidation's watch.
    const announced = createLiveEvent(
      'registry.changed',
      { remotes: [{ name: 'billing', version: '1.1.0', canary: null }] },
      deps.clock,
    )
    // Committed; the event arrives, then the invalidation makes the watch look.
    registry.set({ remotes: [remoteEntry({ version: '1.1.0' })] })
    const before = registry.reads()
    deps.hub.publish({ topic: 'broadcast', event: announced, seq: 7 })
    registry.change({ remotes: [remoteEntry({ version: '1.1.0' })] })
    // Both have been looked at (the event's content, then the watch's check).
    await waitFor(() => (registry.reads() >= before + 2 ? true : undefined), { what: 'two reads' })
    registry.change({ remotes: [remoteEntry({ version: '1.2.0' })] })
    await waitFor(() => events[1], { what: 'the next change' })
    expect(
      events.map((event) => (event.data as { remotes: { version: string }[] }).remotes[0]?.version),
    ).toEqual(['1.1.0', '1.2.0'])
  })

  it('stops watching when stopped', async () => {
    const { registry, deps } = setup({ remotes: [] })
    const stop = await publishRegistryChanges(deps)
    expect(registry.listeners.size).toBe(1)
    stop()
    expect(registry.listeners.size).toBe(0)
  })

  it('does not read a registry that cannot watch', async () => {
    let reads = 0
    const registry: RegistrySource = {
      read: async () => {
        reads += 1
        return { remotes: [] }
      },
    }
    const hub = createEventHub()
    await publishRegistryChanges({
      registry,
      hub,
      logger: createLogger({ level: 'silent' }),
      clock: createManualClock(),
    })
    expect(reads).toBe(0)
  })
})
