import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { createKnownDevices } from './known-devices.ts'

describe('createKnownDevices', () => {
  it('knows a browser for the account it signed in to, until its lifetime ends', async () => {
    const clock = createManualClock()
    const devices = createKnownDevices({ clock, lifetimeMs: 1000 })
    await devices.remember('a@example.test', 'token-1')
    expect(await devices.knows('a@example.test', 'token-1')).toBe(true)
    expect(await devices.knows('b@example.test', 'token-1')).toBe(false)
    expect(await devices.knows('a@example.test', 'token-2')).toBe(false)
    expect(await devices.knows('a@example.test', undefined)).toBe(false)
    clock.advance(1000)
    expect(await devices.knows('a@example.test', 'token-1')).toBe(false)
  })

  it('keeps the browsers and accounts that signed in most recently when full', async () => {
    const clock = createManualClock()
    const devices = createKnownDevices({
      clock,
      lifetimeMs: 1000,
      maxAccounts: 2,
      maxPerAccount: 2,
    })
    await devices.remember('a', '1')
    await devices.remember('a', '2')
    await devices.remember('a', '1')
    await devices.remember('a', '3')
    expect(await Promise.all(['1', '2', '3'].map((token) => devices.knows('a', token)))).toEqual([
      true,
      false,
      true,
    ])
    await devices.remember('b', '1')
    await devices.remember('a', '1')
    await devices.remember('c', '1')
    expect(
      await Promise.all(['a', 'b', 'c'].map((account) => devices.knows(account, '1'))),
    ).toEqual([true, false, true])
  })
})
