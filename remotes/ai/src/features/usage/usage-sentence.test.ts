import { describe, expect, it } from 'vitest'
import { asUsage } from '../../lib/quota.ts'
import { poolLeft, usageSentence } from './components/usage-meter.tsx'

const month = { periodStart: '2026-11-01T00:00:00.000Z', periodEnd: '2026-12-01T00:00:00.000Z' }

describe('the usage meter in a team', () => {
  const team = {
    ...month,
    used: 1200,
    reserved: 0,
    limit: 8000,
    member: { used: 1200, reserved: 0, cap: 8000 },
    pool: { used: 10_000, reserved: 500, limit: 100_000 },
  }

  it('says the member’s own use and what is left of the team’s pool', () => {
    expect(poolLeft(team)).toBe(89_500)
    const sentence = usageSentence(team)
    expect(sentence).toMatch(
      /^Your use: 1.200 of 8.000 tokens this month · team pool left: 89.500$/,
    )
  })

  it('reads the same as before outside a team', () => {
    expect(usageSentence({ ...month, used: 10, reserved: 0, limit: 50 })).toBe(
      '10 of 50 tokens this month',
    )
  })

  it('keeps the member and pool numbers of a live event, and drops a malformed pool', () => {
    expect(asUsage(team)).toEqual(team)
    const broken = asUsage({ ...team, pool: { used: -1, reserved: 0, limit: 10 } })
    expect(broken?.pool).toBeUndefined()
    expect(broken?.used).toBe(1200)
  })
})
