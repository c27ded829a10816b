import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { createKnownDevices } from './known-devices.ts'

describe('createKnownDevices', () => {
  it('knows a browser for the account it signed in to, until its lifetime ends', () => {
    const clock = createManualClock()
    const devices = createKnownDevices({ clock, lifetimeMs: 1000 })
    devices.remember('a@example.test', 'token-1')
    expect(devices.knows('a@example.test', 'token-1')).toBe(true)
    expect(devices.knows('b@example.test', 'token-1')).toBe(false)
    expect(devices.knows('a@example.test', 'token-2')).toBe(false)
    expect(devices.knows('a@example.test', undefined)).toBe(false)
    clock.advance(1000)
    expect(devices.knows('a@example.test', 'token-1')).toBe(false)
  })

  it('keeps the browsers and accounts that signed in most recently when full', () => {
    const clock = createManualClock()
    const devices = createKnownDevices({
      clock,
      lifetimeMs: 1000,
      maxAccounts: 2,
      maxPerAccount: 2,
    })
    devices.remember('a', '1')
    devices.remember('a', '2')
    devices.remember('a', '1')
    devices.remember('a', '3')
    expect(['1', '2', '3'].map((token) => devices.knows('a', token))).toEqual([true, false, true])
    devices.remember('b', '1')
    devices.remember('a', '1')
    devices.remember('c', '1')
    expect(['a', 'b', 'c'].map((account) => devices.knows(account, '1'))).toEqual([
      true,
      false,
      true,
    ])
  })
})
