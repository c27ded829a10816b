import type { LiveEvent } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createManualClock, remoteEntry, waitFor } from '../../testing/app.ts'
import { createEventHub } from '../events/event-hub.ts'
import { publishRegistryChanges } from './registry-changes.ts'
import type { RegistrySource } from './registry.ts'

function watchableRegistry(initial: unknown) {
  let content = initial
  const listeners = new Set<() => void>()
  const source: RegistrySource = {
    read: async () => content,
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
