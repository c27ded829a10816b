import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import {
  backoffDelayMs,
  createSignInThrottle,
  describeWait,
  enforceThrottle,
} from './sign-in-throttle.ts'

const schedule = { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 15 * 60_000 }

function throttle(options: { maxKeys?: number; memoryMs?: number } = {}) {
  const clock = createManualClock()
  return {
    clock,
    throttle: createSignInThrottle({
      clock,
      account: { ...schedule, memoryMs: options.memoryMs ?? 24 * 3600_000 },
      client: { maxFailures: 4, windowMs: 60_000 },
      ...(options.maxKeys === undefined ? {} : { maxKeys: options.maxKeys }),
    }),
  }
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

describe('createSignInThrottle', () => {
  it('delays an account’s next attempt by the back-off after each failure past the free ones', () => {
    const { clock, throttle: t } = throttle()
    for (let n = 0; n < 3; n += 1) {
      t.fail([account])
      expect(t.check([account])).toEqual({ allowed: true })
    }
    for (const seconds of [1, 2, 4, 8, 16]) {
      t.fail([account])
      expect(t.check([account])).toEqual({
        allowed: false,
        retryAfterSeconds: seconds,
        limit: 'account',
      })
      clock.advance(seconds * 1000 - 1)
      expect(t.check([account]).allowed).toBe(false)
      clock.advance(1)
      expect(t.check([account])).toEqual({ allowed: true })
    }
  })

  it('never makes the owner wait longer than the cap, however many failures there were', () => {
    const { clock, throttle: t } = throttle()
    for (let n = 0; n < 1000; n += 1) {
      t.fail([account])
      clock.advance(1000)
    }
    const decision = t.check([account])
    expect(decision).toEqual({ allowed: false, retryAfterSeconds: 899, limit: 'account' })
    clock.advance(899_000)
    expect(t.check([account])).toEqual({ allowed: true })
  })

  it('forgets an account’s failures after a success, or after the memory time without one', () => {
    const { clock, throttle: t } = throttle({ memoryMs: 3600_000 })
    for (let n = 0; n < 6; n += 1) t.fail([account])
    t.reset(account)
    t.fail([account])
    expect(t.check([account])).toEqual({ allowed: true })
    for (let n = 0; n < 6; n += 1) t.fail([account])
    clock.advance(3600_000)
    t.fail([account])
    expect(t.check([account])).toEqual({ allowed: true })
  })

  it('counts nothing when only checking', () => {
    const { throttle: t } = throttle()
    for (let n = 0; n < 10; n += 1)
      expect(t.check([account, 'client:1'])).toEqual({ allowed: true })
  })

  it('refuses a client over its failures in the window, whatever the account, until the window ends', () => {
    const { clock, throttle: t } = throttle()
    for (let n = 0; n < 4; n += 1) t.fail([`email:victim${n}@example.test`, 'client:1'])
    clock.advance(10_000)
    expect(t.check(['email:someone@example.test', 'client:1'])).toEqual({
      allowed: false,
      retryAfterSeconds: 50,
      limit: 'client',
    })
    expect(t.check(['email:someone@example.test', 'client:2'])).toEqual({ allowed: true })
    clock.advance(50_000)
    expect(t.check(['email:someone@example.test', 'client:1'])).toEqual({ allowed: true })
  })

  it('keeps at most maxKeys accounts, dropping the one whose latest failure is oldest', () => {
    const { throttle: t } = throttle({ maxKeys: 2 })
    for (let n = 0; n < 4; n += 1) t.fail(['email:1'])
    t.fail(['email:2'])
    t.fail(['email:1'])
    t.fail(['email:3'])
    expect(t.check(['email:1']).allowed).toBe(false)
    t.fail(['email:4'])
    t.fail(['email:5'])
    expect(t.check(['email:1']).allowed).toBe(true)
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
  it('throws rate_limited saying when to try again, with the seconds to wait', () => {
    const { throttle: t } = throttle()
    expect(() => enforceThrottle(t, [account])).not.toThrow()
    for (let n = 0; n < 6; n += 1) t.fail([account])
    expect(() => enforceThrottle(t, [account])).toThrow(
      expect.objectContaining({
        code: 'rate_limited',
        message: 'Too many wrong passwords for this account. Wait 4 seconds, then try again.',
        details: { retryAfterSeconds: 4, limit: 'account' },
      }),
    )
    for (let n = 0; n < 4; n += 1) t.fail(['client:1'])
    expect(() => enforceThrottle(t, ['email:other@example.test', 'client:1'])).toThrow(
      expect.objectContaining({
        message: 'Too many failed sign-ins from your network. Wait 1 minute, then try again.',
        details: { retryAfterSeconds: 60, limit: 'client' },
      }),
    )
  })
})
