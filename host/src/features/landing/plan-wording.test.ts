import { describe, expect, it } from 'vitest'
import { plans } from '@tessera/contracts/plan-values'
import {
  formatPlanModels,
  formatPlanPeriod,
  formatPlanPrice,
  formatPlanTokens,
} from './plan-wording.ts'

describe('plan wording', () => {
  it('prices a plan per month, without cents when whole', () => {
    expect(formatPlanPrice(plans.free, 'en-US')).toBe('$0')
    expect(formatPlanPrice(plans.pro, 'en-US')).toBe('$15')
    expect(formatPlanPrice({ monthlyPrice: 4950, currency: 'usd' }, 'en-US')).toBe('$49.50')
  })

  it('says a per-seat price is per seat, from its fewest seats', () => {
    expect(formatPlanPeriod(plans.free)).toBe('forever')
    expect(formatPlanPeriod(plans.pro)).toBe('a month')
    expect(formatPlanPeriod(plans.team)).toBe('per seat / month, from 2 seats')
    expect(formatPlanPrice(plans.team, 'en-US')).toBe('$15')
  })

  it("says a plan's tokens and models in the reader's locale", () => {
    expect(formatPlanTokens(plans.pro, 'en-US')).toBe('1,000,000 AI tokens a month')
    expect(formatPlanTokens(plans.team, 'en-US')).toBe(
      '5,000,000 AI tokens a month per seat, pooled for the team',
    )
    expect(formatPlanModels(plans.free, 'en-US')).toBe('Model: GPT-4o mini')
    expect(formatPlanModels(plans.team, 'en-US')).toBe('Models: GPT-4.1, GPT-4o, and GPT-4o mini')
  })
})
