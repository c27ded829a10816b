import { randomUUID } from 'node:crypto'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createSharedCounters } from '../../platform/shared-counters.ts'
import { createManualClock } from '../../testing/app.ts'
import {
  backoffDelayMs,
  createSharedSignInThrottle,
  createSignInThrottle,
  describeWait,
  enforceThrottle,
} from './sign-in-throttle.ts'

const schedule = { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 15 * 60_000 }

let db: Sql
beforeAll(async () => {
  db = await createTestDatabase()
}, databaseSetupTimeout)
afterAll(async () => {
  await db.close()
})

type Kind = 'in memory' | 'in the database'

function throttle(options: { maxKeys?: number; memoryMs?: number; kind?: Kind } = {}) {
  const clock = createManualClock()
  const settings = {
    clock,
    account: { ...schedule, memoryMs: options.memoryMs ?? 24 * 3600_000 },
    client: { maxFailures: 4, windowMs: 60_000 },
    ...(options.maxKeys === undefined ? {} : { maxKeys: options.maxKeys }),
  }
  if (options.kind !== 'in the database') return { clock, throttle: createSignInThrottle(settings) }
  const counters = createSharedCounters({
    sql: db,
    clock,
    logger: createLogger({ level: 'silent' }),
    timeoutMs: 10_000,
    namespace: randomUUID(),
  })
  return { clock, throttle: createSharedSignInThrottle({ ...settings, counters }) }
}

const account = 'email:owner@example.test'

describe('backoffDelayMs', () => {
  it('lets the free failures through, then doubles the delay with each failure up to the cap', () => {
    const delays = Array.from({ length: 16 }, (_, n) => backoffDelayMs(n + 1, schedule) / 1000)
    expect(delays).toEqual([0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900])
    expect(backoffDelayMs(0, schedule)).toBe(0)
    expect(backoffDelayMs(10_000, schedule)).toBe(15 * 60_000)
  })
})

describe.each<Kind>(['in memory', 'in the database'])('the sign-in throttle %s', (kind) => {
  it('delays an account’s next attempt by the back-off after each failure past the free ones', async () => {
    const { clock, throttle: t } = throttle({ kind })
    for (let n = 0; n < 3; n += 1) {
      await t.fail([account])
      expect(await t.check([account])).toEqual({ allowed: true })
    }
    for (const seconds of [1, 2, 4, 8, 16]) {
      await t.fail([account])
      expect(await t.check([account])).toEqual({
        allowed: false,
        retryAfterSeconds: seconds,
        limit: 'account',
      })
      clock.advance(seconds * 1000 - 1)
      expect((await t.check([account])).allowed).toBe(false)
      clock.advance(1)
      expect(await t.check([account])).toEqual({ allowed: true })
    }
  })

  it('never makes the owner wait longer than the cap, however many failures there were', async () => {
    const { clock, throttle: t } = throttle({ kind })
    for (let n = 0; n < 1000; n += 1) {
      await t.fail([account])
      clock.advance(1000)
    }
    const decision = await t.check([account])
    expect(decision).toEqual({ allowed: false, retryAfterSeconds: 899, limit: 'account' })
    clock.advance(899_000)
    expect(await t.check([account])).toEqual({ allowed: true })
  })

  it('forgets an account’s failures after a success, or after the memory time without one', async () => {
    const { clock, throttle: t } = throttle({ memoryMs: 3600_000, kind })
    for (let n = 0; n < 6; n += 1) await t.fail([account])
    await t.reset(account)
    await t.fail([account])
    expect(await t.check([account])).toEqual({ allowed: true })
    for (let n = 0; n < 6; n += 1) await t.fail([account])
    clock.advance(3600_000)
    await t.fail([account])
    expect(await t.check([account])).toEqual({ allowed: true })
  })

  it('counts nothing when only checking', async () => {
    const { throttle: t } = throttle({ kind })
    for (let n = 0; n < 10; n += 1)
      expect(await t.check([account, 'client:1'])).toEqual({ allowed: true })
  })

  it('refuses a client over its failures in the window, whatever the account, until the window ends', async () => {
    const { clock, throttle: t } = throttle({ kind })
    for (let n = 0; n < 4; n += 1) await t.fail([`email:victim${n}@example.test`, 'client:1'])
    clock.advance(10_000)
    expect(await t.check(['email:someone@example.test', 'client:1'])).toEqual({
      allowed: false,
      retryAfterSeconds: 50,
      limit: 'client',
    })
    expect(await t.check(['email:someone@example.test', 'client:2'])).toEqual({ allowed: true })
    clock.advance(50_000)
    expect(await t.check(['email:someone@example.test', 'client:1'])).toEqual({ allowed: true })
  })

  // Only the in-memory throttle has a key bound; the database's rows expire instead.
  if (kind === 'in memory')
    it('keeps at most maxKeys accounts, dropping the one whose latest failure is oldest', async () => {
      const { throttle: t } = throttle({ maxKeys: 2 })
      for (let n = 0; n < 4; n += 1) await t.fail(['email:1'])
      await t.fail(['email:2'])
      await t.fail(['email:1'])
      await t.fail(['email:3'])
      expect((await t.check(['email:1'])).allowed).toBe(false)
      await t.fail(['email:4'])
      await t.fail(['email:5'])
      expect((await t.check(['email:1'])).allowed).toBe(true)
    })
})

describe('describeWait', () => {
  it('says a wait as people do, rounded up', () => {
    expect(describeWait(1)).toBe('1 second')
    expect(describeWait(8)).toBe('8 seconds')
    expect(describeWait(61)).toBe('2 minutes')
    expect(describeWait(900)).toBe('15 minutes')
    expect(describeWait(3 * 3600)).toBe('3 hours')
  })
})

describe('enforceThrottle', () => {
  it('throws rate_limited saying when to try again, with the seconds to wait', async () => {
    const { throttle: t } = throttle()
    await expect(enforceThrottle(t, [account])).resolves.toBeUndefined()
    for (let n = 0; n < 6; n += 1) await t.fail([account])
    await expect(enforceThrottle(t, [account])).rejects.toThrow(
      expect.objectContaining({
        code: 'rate_limited',
        message: 'Too many wrong passwords for this account. Wait 4 seconds, then try again.',
        details: { retryAfterSeconds: 4, limit: 'account' },
      }),
    )
    for (let n = 0; n < 4; n += 1) await t.fail(['client:1'])
    await expect(enforceThrottle(t, ['email:other@example.test', 'client:1'])).rejects.toThrow(
      expect.objectContaining({
        message: 'Too many failed sign-ins from your network. Wait 1 minute, then try again.',
        details: { retryAfterSeconds: 60, limit: 'client' },
      }),
    )
  })
})
