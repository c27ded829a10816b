import type { Sql } from '@tessera/db/sql'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createManualClock, waitFor } from '../../testing/app.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { createProfiles } from '../identity/profiles.ts'
import { createCacheInvalidations } from './cache-invalidation.ts'
import type { Invalidation } from './cache-invalidation.ts'
import { createEventHub } from './event-hub.ts'
import { createOutboxBus, startEventRelay } from './event-outbox.ts'
import type { EventRelay } from './event-outbox.ts'

const clock = createManualClock()
const logger = createLogger({ level: 'silent' })

let db: Sql
beforeAll(async () => {
  db = await createBffTestDatabase()
}, databaseSetupTimeout)
afterAll(async () => {
  await db.close()
})

const relays: EventRelay[] = []
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()))
})

/** One replica's invalidations: its own hub, fed by its own relay from the shared database. */
async function startReplica() {
  const hub = createEventHub()
  const relay = await startEventRelay({ sql: db, hub, logger, retentionMs: 600_000 })
  relays.push(relay)
  return createCacheInvalidations({ bus: createOutboxBus(db), hub, clock })
}

async function newUser(): Promise<string> {
  const id = crypto.randomUUID()
  await db.query(`insert into auth.users (id, email) values ($1, $2)`, [id, `${id}@example.test`])
  return id
}

describe('cache invalidation between replicas', () => {
  it('reaches every replica, the publishing one too, and only after the change commits', async () => {
    const a = await startReplica()
    const b = await startReplica()
    const heardByA: Invalidation[] = []
    const heardByB: Invalidation[] = []
    a.subscribe((invalidation) => heardByA.push(invalidation))
    b.subscribe((invalidation) => heardByB.push(invalidation))
    await expect(
      db.transaction(async (tx) => {
        await a.publish({ cache: 'prices' }, tx)
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    await a.publish({ cache: 'registry' })
    await waitFor(() => (heardByA.length > 0 && heardByB.length > 0 ? true : undefined), {
      what: 'both replicas to hear',
    })
    expect(heardByA).toEqual([{ cache: 'registry' }])
    expect(heardByB).toEqual([{ cache: 'registry' }])
  })

  it('makes a profile changed through one replica read fresh on another at once', async () => {
    const userId = await newUser()
    const claims = { sub: userId, role: 'authenticated' }
    // A cache lifetime far longer than the test: only the invalidation can make b read again.
    const a = createProfiles(db, { clock, cacheMs: 3_600_000, invalidations: await startReplica() })
    const b = createProfiles(db, { clock, cacheMs: 3_600_000, invalidations: await startReplica() })
    await a.ensure(claims, 'Ada')
    expect((await b.get(claims))?.display_name).toBe('Ada')
    await a.update(claims, 'Ada Lovelace')
    await waitFor(
      async () => ((await b.get(claims))?.display_name === 'Ada Lovelace' ? true : undefined),
      { what: 'replica b to read the new name' },
    )
  })
})
