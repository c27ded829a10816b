import { describe, expect, it } from 'vitest'
import { plans } from '@tessera/contracts/plan-values'
import { formatPlanModels, formatPlanPrice, formatPlanTokens } from './plan-wording.ts'

describe('plan wording', () => {
  it('prices a plan per month, without cents when whole', () => {
    expect(formatPlanPrice(plans.free, 'en-US')).toBe('$0')
    expect(formatPlanPrice(plans.pro, 'en-US')).toBe('$15')
    expect(formatPlanPrice({ monthlyPrice: 4950, currency: 'usd' }, 'en-US')).toBe('$49.50')
  })

  it("says a plan's tokens and models in the reader's locale", () => {
    expect(formatPlanTokens(plans.pro, 'en-US')).toBe('1,000,000 AI tokens a month')
    expect(formatPlanModels(plans.free, 'en-US')).toBe('Model: GPT-4o mini')
    expect(formatPlanModels(plans.team, 'en-US')).toBe('Models: GPT-4.1, GPT-4o, and GPT-4o mini')
  })
})
