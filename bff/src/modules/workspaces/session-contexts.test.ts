import type { Entitlements } from '@tessera/contracts'
import { entitlementsOf } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { createCacheInvalidations } from '../events/cache-invalidation.ts'
import { createEventHub } from '../events/event-hub.ts'
import { createLocalBus } from '../events/event-outbox.ts'
import { createSessionContexts } from './session-contexts.ts'
import type { SessionWorkspace } from './session-contexts.ts'

const ann = { id: 'session-ann', userId: 'ann' }
const bob = { id: 'session-bob', userId: 'bob' }
const personal: SessionWorkspace = { id: 'w1', name: 'Personal', kind: 'personal', role: 'owner' }
const team: SessionWorkspace = { id: 'w2', name: 'Acme', kind: 'team', role: 'member' }

/** Two replicas' caches that hear each other's invalidations, and what their loads read. */
function setUp() {
  const clock = createManualClock()
  const hub = createEventHub()
  const invalidations = createCacheInvalidations({ bus: createLocalBus(hub), hub, clock })
  const replicas = [0, 1].map(() => createSessionContexts({ clock, ttlMs: 2000, invalidations }))
  let stored = personal
  let reads = 0
  const load = async () => {
    reads += 1
    return stored
  }
  return {
    clock,
    replicas,
    load,
    store: (workspace: SessionWorkspace) => (stored = workspace),
    reads: () => reads,
  }
}

describe('a session’s workspace, kept per session', () => {
  it('is read once while it is kept, and again once it is older than the lifetime', async () => {
    const { clock, replicas, load, reads } = setUp()
    const [a] = replicas
    await Promise.all([a!.workspace(ann, load), a!.workspace(ann, load)])
    await a!.workspace(ann, load)
    expect(reads()).toBe(1)
    clock.advance(2000)
    await a!.workspace(ann, load)
    expect(reads()).toBe(2)
  })

  it('shows a change at once on the replica that made it and on every other one', async () => {
    const { replicas, load, store } = setUp()
    const [a, b] = replicas
    expect(await a!.workspace(ann, load)).toEqual(personal)
    expect(await b!.workspace(ann, load)).toEqual(personal)
    store(team)
    await a!.changed(['ann'])
    expect(await a!.workspace(ann, load)).toEqual(team)
    expect(await b!.workspace(ann, load)).toEqual(team)
  })

  it('keeps other users’ sessions when one user’s change is heard', async () => {
    const { replicas, load, reads } = setUp()
    const [a] = replicas
    await a!.workspace(ann, load)
    await a!.workspace(bob, load)
    await a!.changed(['ann'])
    await a!.workspace(bob, load)
    expect(reads()).toBe(2)
    await a!.workspace(ann, load)
    expect(reads()).toBe(3)
  })

  it('drops the entitlements with the workspace', async () => {
    const { replicas } = setUp()
    const [a] = replicas
    let plan: Entitlements = entitlementsOf(null)
    const load = async () => plan
    expect((await a!.entitlements(ann, load)).plan).toBe('free')
    plan = entitlementsOf({ plan: 'pro', status: 'active' })
    expect((await a!.entitlements(ann, load)).plan).toBe('free')
    await a!.changed(['ann'])
    expect((await a!.entitlements(ann, load)).plan).toBe('pro')
  })
})
