import { describe, expect, it } from 'vitest'
import { createManualClock } from '../testing/app.ts'
import { createRateLimiter } from './rate-limiter.ts'

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
