import { describe, expect, it } from 'vitest'
import {
  currentSubscription,
  differences,
  stateOf,
  stripeSubscriptionSchema,
  subscriptionResponseOf,
} from './subscription-state.ts'
import type { SubscriptionState } from './subscription-state.ts'

function subscription(
  overrides: Record<string, unknown> = {},
  lookupKey: string | null = 'tessera_pro_monthly',
) {
  return stripeSubscriptionSchema.parse({
    id: 'sub_1',
    object: 'subscription',
    customer: 'cus_1',
    status: 'active',
    created: 1_800_000_000,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    items: {
      data: [
        {
          current_period_end: 1_802_592_000,
          price: { id: 'price_1', lookup_key: lookupKey },
        },
      ],
    },
    ...overrides,
  })
}

const state = (overrides: Partial<SubscriptionState>): SubscriptionState => ({
  ...stateOf(subscription()),
  ...overrides,
})

describe('stateOf', () => {
  it('finds the plan by the price’s lookup key and the period on the item', () => {
    const result = stateOf(subscription())
    expect(result).toMatchObject({ plan: 'pro', status: 'active', stripePriceId: 'price_1' })
    expect(result.currentPeriodEnd?.toISOString()).toBe('2027-02-14T08:00:00.000Z')
  })

  it('keeps the item’s quantity as the seats, and 1 when Stripe sends none', () => {
    const seats = subscription({
      items: {
        data: [
          {
            current_period_end: 1_802_592_000,
            price: { id: 'price_team', lookup_key: 'tessera_team_monthly' },
            quantity: 3,
          },
        ],
      },
    })
    expect(stateOf(seats)).toMatchObject({ plan: 'team', quantity: 3 })
    expect(stateOf(subscription()).quantity).toBe(1)
    expect(differences(stateOf(subscription()), stateOf(seats))).toContain('quantity')
  })

  it('refuses a subscription whose quantity is not a positive integer', () => {
    for (const quantity of [0, -2, 1.5, '3']) {
      expect(() =>
        subscription({
          items: {
            data: [{ current_period_end: 1, price: { id: 'price_1', lookup_key: null }, quantity }],
          },
        }),
      ).toThrow()
    }
  })

  it('stores a price we do not sell as the free plan', () => {
    expect(stateOf(subscription({}, 'someone_elses_price')).plan).toBe('free')
  })

  it('takes the period end as the cancellation date when Stripe only sets the flag', () => {
    const result = stateOf(subscription({ cancel_at_period_end: true }))
    expect(result.cancelAt?.getTime()).toBe(result.currentPeriodEnd?.getTime())
  })
})

describe('currentSubscription', () => {
  it('prefers a subscription that grants access, then the newest', () => {
    const old = state({
      stripeSubscriptionId: 'sub_old',
      status: 'canceled',
      stripeCreatedAt: new Date(2000),
    })
    const live = state({
      stripeSubscriptionId: 'sub_live',
      status: 'past_due',
      stripeCreatedAt: new Date(1000),
    })
    const newer = state({
      stripeSubscriptionId: 'sub_new',
      status: 'incomplete',
      stripeCreatedAt: new Date(3000),
    })
    expect(currentSubscription([old, live, newer])?.stripeSubscriptionId).toBe('sub_live')
    expect(currentSubscription([old, newer])?.stripeSubscriptionId).toBe('sub_new')
    expect(currentSubscription([])).toBeNull()
  })
})

describe('subscriptionResponseOf', () => {
  it('shows no subscription once it no longer grants a paid plan', () => {
    expect(subscriptionResponseOf(state({ status: 'canceled' }))).toMatchObject({
      subscription: null,
      entitlements: { plan: 'free', status: 'canceled' },
    })
    expect(subscriptionResponseOf(state({ status: 'past_due' }))).toMatchObject({
      subscription: { plan: 'pro', status: 'past_due' },
      entitlements: { plan: 'pro', pastDue: true },
    })
  })
})

describe('differences', () => {
  it('names the fields that differ', () => {
    expect(differences(state({}), state({}))).toEqual([])
    expect(differences(state({}), state({ status: 'unpaid', cancelAt: new Date(5) }))).toEqual([
      'status',
      'cancelAt',
    ])
  })
})
