import type { ReactNode } from 'react'
import { vi } from 'vitest'
import {
  entitlementsOf,
  type Entitlements,
  type PlanId,
  type PlansResponse,
  type SessionState,
  type SubscriptionResponse,
  type SubscriptionStatus,
} from '@tessera/contracts'
import { planList } from '@tessera/contracts/plans'
import { renderRemotePage, type RenderPageOptions } from '@tessera/plugin-react/testing'
import { externalRedirect } from '../lib/redirect.ts'

export { apiError, deferred, fakeBff, type ApiCall } from '@tessera/plugin-react/testing'

/** Entitlements as the BFF derives them, for a plan in a status. */
export function entitlementsFor(plan: PlanId, status: SubscriptionStatus = 'active'): Entitlements {
  return entitlementsOf(plan === 'free' ? null : { plan, status })
}

/** Ada, signed in, on a plan. */
export function signedIn(plan: PlanId = 'free', status: SubscriptionStatus = 'active') {
  return {
    status: 'signed-in',
    user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
    entitlements: entitlementsFor(plan, status),
  } satisfies SessionState
}

export const signedOut: SessionState = { status: 'signed-out', user: null }

/** `GET /api/billing/plans` as the BFF answers it, from the catalogue. */
export function plansBody(current: PlanId | null): PlansResponse {
  return {
    current,
    plans: planList.map((plan) => ({
      id: plan.id,
      name: plan.name,
      tagline: plan.tagline,
      monthlyPrice: plan.monthlyPrice,
      perSeat: plan.perSeat,
      minSeats: plan.minSeats,
      currency: plan.currency,
      monthlyTokens: plan.limits.monthlyTokens,
      models: [...plan.limits.models],
      features: [...plan.features],
    })),
  }
}

/** `GET /api/billing/subscription` for a plan, with dates. */
export function subscriptionBody(
  plan: PlanId,
  options: {
    status?: SubscriptionStatus
    currentPeriodEnd?: string
    cancelAt?: string | null
  } = {},
): SubscriptionResponse {
  const status = options.status ?? 'active'
  return {
    subscription:
      plan === 'free'
        ? null
        : {
            plan,
            status,
            currentPeriodEnd: options.currentPeriodEnd ?? '2026-12-22T12:00:00.000Z',
            cancelAt: options.cancelAt ?? null,
            canceledAt: null,
          },
    entitlements: entitlementsFor(plan, status),
  }
}

/** Watches where the page sends the browser (checkout, portal) instead of leaving the test. */
export function watchRedirects(): string[] {
  const urls: string[] = []
  vi.spyOn(externalRedirect, 'go').mockImplementation((url) => {
    urls.push(url)
  })
  return urls
}

/**
 * Renders `node` as a mounted billing page would be: StrictMode, the platform, signed in on Free
 * unless `session` says otherwise. `navigate` moves the fake platform's route and the page's
 * address (pages read the query from it).
 */
export function renderPage(node: ReactNode, options: Partial<RenderPageOptions> = {}) {
  return renderRemotePage(
    node,
    { name: 'billing' },
    { ...options, path: options.path ?? '/billing', session: options.session ?? signedIn() },
  )
}
