import type {
  CheckoutStatus,
  PlansResponse,
  RedirectResponse,
  SeatPreview,
  SubscriptionResponse,
} from '@tessera/contracts/billing'
import type { PlanId } from '@tessera/contracts/plans'
import type { Platform } from '@tessera/contracts/platform'
import type { WorkspacesResponse } from '@tessera/contracts/workspaces'

/** A plan a checkout can be started for. */
export type PaidPlanId = Exclude<PlanId, 'free'>

/**
 * The billing routes of the BFF, typed by the contracts' shapes. Every call goes through the
 * platform's `api.fetch` (cookie, CSRF header, catalogue errors thrown as `ApiError`), so a body
 * read here is always the success shape. The BFF validates what it sends against the same
 * contracts, and parsing again here would bring zod into the bundle.
 */
export function createBillingApi(platform: Platform) {
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await platform.api.fetch(path, init)
    return (await response.json()) as T
  }
  return {
    plans: () => json<PlansResponse>('/api/billing/plans'),
    subscription: () => json<SubscriptionResponse>('/api/billing/subscription'),
    /** Team is bought for a team workspace (`workspaceId`); Pro for the personal one. */
    startCheckout: (plan: PaidPlanId, workspaceId?: string) =>
      json<RedirectResponse>('/api/billing/checkout', {
        method: 'POST',
        body: JSON.stringify(workspaceId === undefined ? { plan } : { plan, workspaceId }),
      }),
    /** The current team's next invoice with `quantity` seats (owners and admins). */
    seatPreview: (quantity: number) =>
      json<SeatPreview>(`/api/billing/seats/preview?quantity=${encodeURIComponent(quantity)}`),
    /** The user's workspaces (the current team's member count prices its seats). */
    workspaces: () => json<WorkspacesResponse>('/api/workspaces'),
    checkoutStatus: (sessionId: string) =>
      json<CheckoutStatus>(`/api/billing/checkout/${encodeURIComponent(sessionId)}`),
    openPortal: () => json<RedirectResponse>('/api/billing/portal', { method: 'POST' }),
  }
}

export type BillingApi = ReturnType<typeof createBillingApi>
