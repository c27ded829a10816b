import { describe, expect, it } from 'vitest'
import { SUBSCRIPTION_EVENT_TYPE } from '@tessera/contracts/billing'
import { ENTITLEMENTS_EVENT_TYPE } from '@tessera/contracts/plans'
import { ENTITLEMENTS_EVENT, SUBSCRIPTION_EVENT } from './live-event-types.ts'

describe('live event types', () => {
  it('are the names the contracts give the BFF', () => {
    expect(ENTITLEMENTS_EVENT).toBe(ENTITLEMENTS_EVENT_TYPE)
    expect(SUBSCRIPTION_EVENT).toBe(SUBSCRIPTION_EVENT_TYPE)
  })
})
