import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManualClock, waitFor } from '../testing/app.ts'
import { createLogger } from './logger.ts'
import { createSharedCounters } from './shared-counters.ts'

let db: Sql
beforeAll(async () => {
  db = await createTestDatabase()
}, databaseSetupTimeout)
afterAll(() => db.close())

const countersFor = (namespace: string) => {
  const clock = createManualClock()
  const counters = createSharedCounters({
    sql: db,
    clock,
    logger: createLogger({ level: 'silent' }),
    timeoutMs: 10_000,
    namespace,
  })
  return { clock, counters }
}

describe('createSharedCounters', () => {
  it('gives each of many parallel hits its own count, and starts a new window after the old', async () => {
    const { clock, counters } = countersFor('parallel')
    const hits = await Promise.all(
      Array.from({ length: 40 }, () =>
        counters.hit('chat', [{ key: 'user-1', ttlMs: 60_000 }], clock.now()),
      ),
    )
    const counts = hits.map(([state]) => state?.hits).sort((a, b) => (a ?? 0) - (b ?? 0))
    expect(counts).toEqual(Array.from({ length: 40 }, (_, n) => n + 1))
    expect(hits[0]?.[0]?.expiresAt).toBe(clock.now() + 60_000)
    clock.advance(60_000)
    const [fresh] = await counters.hit('chat', [{ key: 'user-1', ttlMs: 60_000 }], clock.now())
    expect(fresh).toMatchObject({ hits: 1, windowStartedAt: clock.now() })
  })

  it('moves a sliding count’s end with each hit, and forgets it on request', async () => {
    const { clock, counters } = countersFor('sliding')
    const hit = () =>
      counters.hit('sign-in', [{ key: 'email:a', ttlMs: 10_000, sliding: true }], clock.now())
    await hit()
    clock.advance(8000)
    const [second] = await hit()
    expect(second).toMatchObject({ hits: 2, expiresAt: clock.now() + 10_000 })
    clock.advance(8000)
    expect(await counters.read('sign-in', ['email:a', 'email:b'], clock.now())).toMatchObject([
      { key: 'email:a', hits: 2 },
    ])
    await counters.forget('sign-in', ['email:a'])
    expect(await counters.read('sign-in', ['email:a'], clock.now())).toEqual([])
  })

  it('deletes expired counts after a hit, at most once a minute', async () => {
    const { clock, counters } = countersFor('sweep')
    const left = async () =>
      (
        await db.query<{ n: number }>(
          `select count(*)::int as n from public.limit_counters where scope like 'sweep%'`,
        )
      ).rows[0]?.n
    await counters.hit(
      'csp',
      ['a', 'b', 'c'].map((key) => ({ key, ttlMs: 1000 })),
      clock.now(),
    )
    expect(await left()).toBe(3)
    clock.advance(61_000)
    await counters.hit('csp', [{ key: 'd', ttlMs: 1000 }], clock.now())
    await waitFor(async () => ((await left()) === 1 ? true : undefined), {
      what: 'the expired counts to be deleted',
    })
  })
})
