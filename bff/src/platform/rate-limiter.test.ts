import { describe, expect, it } from 'vitest'
import { createManualClock } from '../testing/app.ts'
import { createRateLimiter, createSharedRateLimiter } from './rate-limiter.ts'
import type { CounterState, SharedCounters } from './shared-counters.ts'

describe('createRateLimiter', () => {
  it('allows the limit within a window, then refuses with the seconds left', () => {
    const clock = createManualClock()
    const limiter = createRateLimiter({ limit: 2, windowMs: 60_000, clock })
    expect(limiter.hit('a')).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 })
    clock.advance(500)
    expect(limiter.hit('a')).toEqual({ allowed: true, remaining: 0, resetSeconds: 60 })
    clock.advance(15_000)
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 45 })
  })

  it('counts each client separately', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 1000, clock: createManualClock() })
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('b').allowed).toBe(true)
    expect(limiter.hit('a').allowed).toBe(false)
  })

  it('starts a new window once the old one has passed', () => {
    const clock = createManualClock()
    const limiter = createRateLimiter({ limit: 1, windowMs: 1000, clock })
    limiter.hit('a')
    expect(limiter.hit('a').allowed).toBe(false)
    clock.advance(1000)
    expect(limiter.hit('a').allowed).toBe(true)
  })

  it('never asks to wait less than one second', () => {
    const clock = createManualClock()
    const limiter = createRateLimiter({ limit: 1, windowMs: 1000, clock })
    limiter.hit('a')
    clock.advance(999)
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 1 })
  })

  it('stays bounded when many clients come and go', () => {
    const clock = createManualClock()
    const limiter = createRateLimiter({ limit: 1, windowMs: 1000, clock, maxKeys: 3 })
    for (const key of ['a', 'b', 'c', 'd']) limiter.hit(key)
    // 'a' was dropped to make room, so it gets a fresh window rather than a refusal.
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('d').allowed).toBe(false)
  })
})

describe('createSharedRateLimiter', () => {
  /** Fixed windows counted as the database would, with the statements it was sent counted. */
  function fakeCounters() {
    const windows = new Map<string, CounterState>()
    let statements = 0
    const unused = () => Promise.reject(new Error('not used by the limiter'))
    const counters: SharedCounters = {
      hit(scope, hits, now) {
        statements += 1
        return Promise.resolve(
          hits.map(({ key, ttlMs }) => {
            const id = `${scope}:${key}`
            const old = windows.get(id)
            const state =
              old === undefined || old.expiresAt <= now
                ? { key, hits: 1, windowStartedAt: now, lastHitAt: now, expiresAt: now + ttlMs }
                : { ...old, hits: old.hits + 1, lastHitAt: now }
            windows.set(id, state)
            return state
          }),
        )
      },
      read: unused,
      forget: unused,
      canaryServed: unused,
      canaryFailed: unused,
      canaryCounts: unused,
      attempt: (_what, work) => work(),
    }
    return { counters, statements: () => statements }
  }

  /** A chat limiter over the fake, on a clock the test moves, and the statements it sent. */
  function sharedLimiter(limit: number, maxRefused?: number) {
    const clock = createManualClock()
    const { counters, statements } = fakeCounters()
    const limiter = createSharedRateLimiter({
      counters,
      name: 'chat',
      limit,
      windowMs: 60_000,
      clock,
      ...(maxRefused === undefined ? {} : { maxRefused }),
    })
    return { clock, limiter, statements }
  }

  it('refuses a key the database refused at once, without a statement, until its window ends', async () => {
    const { clock, limiter, statements } = sharedLimiter(2)
    expect(await limiter.hit('a')).toMatchObject({ allowed: true, remaining: 1 })
    expect(await limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
    expect(await limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 60 })
    expect(statements()).toBe(3)
    clock.advance(20_000)
    // Known: answered in the same turn, with the same window's end.
    const known = limiter.hit('a')
    expect(known).toEqual({ allowed: false, retryAfterSeconds: 40 })
    expect(await limiter.hit('b')).toMatchObject({ allowed: true })
    expect(statements()).toBe(4)
    clock.advance(40_000)
    expect(await limiter.hit('a')).toMatchObject({ allowed: true, remaining: 1 })
    expect(statements()).toBe(5)
  })

  it('remembers a bounded number of refused keys', async () => {
    const { limiter, statements } = sharedLimiter(1, 2)
    for (const key of ['a', 'b', 'c']) {
      await limiter.hit(key)
      expect(await limiter.hit(key)).toMatchObject({ allowed: false })
    }
    const before = statements()
    // 'a' was forgotten to make room: the database is asked again, and still refuses.
    expect(await limiter.hit('a')).toMatchObject({ allowed: false })
    expect(statements()).toBe(before + 1)
    expect(limiter.hit('c')).toMatchObject({ allowed: false })
    expect(statements()).toBe(before + 1)
  })
})
