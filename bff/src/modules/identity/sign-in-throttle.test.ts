import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { createSignInThrottle, enforceThrottle } from './sign-in-throttle.ts'

function throttle(maxKeys?: number) {
  const clock = createManualClock()
  return {
    clock,
    throttle: createSignInThrottle({
      rules: [
        { prefix: 'email:', maxFailures: 2 },
        { prefix: 'client:', maxFailures: 3 },
      ],
      windowMs: 60_000,
      clock,
      ...(maxKeys === undefined ? {} : { maxKeys }),
    }),
  }
}

describe('createSignInThrottle', () => {
  it('refuses a key after its rule’s failures until the window ends', () => {
    const { clock, throttle: t } = throttle()
    const keys = ['email:a@example.test', 'client:1']
    t.fail(keys)
    expect(t.check(keys)).toEqual({ allowed: true })
    clock.advance(10_000)
    t.fail(keys)
    expect(t.check(keys)).toEqual({ allowed: false, retryAfterSeconds: 50 })
    // Another address from the same client is still allowed (client limit is 3).
    expect(t.check(['email:b@example.test', 'client:1'])).toEqual({ allowed: true })
    clock.advance(50_000)
    expect(t.check(keys)).toEqual({ allowed: true })
  })

  it('counts nothing when only checking, and forgets an address after a success', () => {
    const { throttle: t } = throttle()
    for (let n = 0; n < 5; n += 1)
      expect(t.check(['email:a@example.test'])).toEqual({ allowed: true })
    t.fail(['email:a@example.test'])
    t.reset('email:a@example.test')
    t.fail(['email:a@example.test'])
    expect(t.check(['email:a@example.test'])).toEqual({ allowed: true })
  })

  it('keeps at most maxKeys windows', () => {
    const { throttle: t } = throttle(2)
    t.fail(['email:1', 'email:1'])
    t.fail(['email:1'])
    expect(t.check(['email:1']).allowed).toBe(false)
    t.fail(['email:2'])
    t.fail(['email:3'])
    // The oldest window made room.
    expect(t.check(['email:1']).allowed).toBe(true)
  })
})

describe('enforceThrottle', () => {
  it('throws rate_limited with the seconds to wait once a key is over its limit', () => {
    const { throttle: t } = throttle()
    expect(() => enforceThrottle(t, ['email:a@example.test'])).not.toThrow()
    t.fail(['email:a@example.test', 'email:a@example.test'])
    expect(() => enforceThrottle(t, ['email:a@example.test'])).toThrow(
      expect.objectContaining({ code: 'rate_limited', details: { retryAfterSeconds: 60 } }),
    )
  })
})
