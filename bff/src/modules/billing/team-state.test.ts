import { describe, expect, it } from 'vitest'
import { pickCurrent, teamEntitlements, teamSubscriptionResponse } from './team-state.ts'
import type { TeamPlanFacts } from './team-state.ts'

const workspaceId = '6f1c1b4e-8d0a-4c57-9a55-1f0d6f7e2a10'
const facts = (overrides: Partial<TeamPlanFacts> = {}): TeamPlanFacts => ({
  subscriptionId: 'sub_1',
  plan: 'team',
  status: 'active',
  quantity: 3,
  createdAt: new Date('2026-11-01T00:00:00Z'),
  currentPeriodEnd: new Date('2026-12-01T00:00:00Z'),
  cancelAt: null,
  canceledAt: null,
  ...overrides,
})

describe('a team’s entitlements', () => {
  it('pools the plan’s tokens over the seats', () => {
    expect(teamEntitlements(workspaceId, 'member', facts())).toMatchObject({
      plan: 'team',
      monthlyTokens: 15_000_000,
      pastDue: false,
      workspace: { id: workspaceId, kind: 'team', role: 'member', seats: 3 },
    })
  })

  it('is Free for one seat without a subscription, or with one that ended', () => {
    for (const current of [null, facts({ status: 'canceled' }), facts({ status: 'unpaid' })]) {
      expect(teamEntitlements(workspaceId, 'owner', current)).toMatchObject({
        plan: 'free',
        monthlyTokens: 50_000,
        workspace: { seats: 1 },
      })
    }
  })

  it('says past due while Stripe retries the payment (the assistant stops sends)', () => {
    expect(teamEntitlements(workspaceId, 'admin', facts({ status: 'past_due' }))).toMatchObject({
      plan: 'team',
      pastDue: true,
    })
  })
})

describe('the team’s subscription', () => {
  it('prefers one that grants access, then the newest', () => {
    const old = facts({ subscriptionId: 'sub_old', createdAt: new Date('2026-01-01') })
    const ended = facts({ subscriptionId: 'sub_ended', status: 'canceled' })
    expect(pickCurrent([ended, old])?.subscriptionId).toBe('sub_old')
    expect(pickCurrent([old, facts()])?.subscriptionId).toBe('sub_1')
    expect(pickCurrent([])).toBeNull()
  })

  it('shows members the plan, status and seats, without dates', () => {
    const current = facts()
    const forMember = teamSubscriptionResponse(
      teamEntitlements(workspaceId, 'member', current),
      current,
      'member',
    )
    expect(forMember.subscription).toEqual({
      plan: 'team',
      status: 'active',
      currentPeriodEnd: null,
      cancelAt: null,
      canceledAt: null,
      seats: 3,
    })
    const forOwner = teamSubscriptionResponse(
      teamEntitlements(workspaceId, 'owner', current),
      current,
      'owner',
    )
    expect(forOwner.subscription?.currentPeriodEnd).toBe('2026-12-01T00:00:00.000Z')
  })
})
