import { describe, expect, it } from 'vitest'
import { formatSeatPrice, seatsFor } from './seat-wording.ts'

const team = { monthlyPrice: 1500, minSeats: 2, currency: 'usd' }

describe('seat wording', () => {
  it('charges a seat per member, from the plan’s minimum', () => {
    expect(seatsFor(1, 2)).toBe(2)
    expect(seatsFor(3, 2)).toBe(3)
  })

  it('says what the seats cost, and when the minimum applies', () => {
    expect(formatSeatPrice(3, team, 'en-US')).toBe('3 members: 3 seats × $15 = $45 a month')
    expect(formatSeatPrice(1, team, 'en-US')).toBe(
      '1 member: 2 seats (the minimum) × $15 = $30 a month',
    )
  })
})
