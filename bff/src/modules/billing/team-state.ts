// A team workspace's subscription as its members see it (docs/decisions/026): which of its rows
// counts, the entitlements with the token pool, and the subscription as each role may see it.
import { entitlementsOf, plans } from '@tessera/contracts'
import type {
  Entitlements,
  PlanId,
  SubscriptionResponse,
  SubscriptionStatus,
  WorkspaceRole,
} from '@tessera/contracts'

/** What a team's subscription is, as any member may know it. */
export interface TeamPlanFacts {
  subscriptionId: string | null
  plan: PlanId
  status: SubscriptionStatus
  quantity: number
  createdAt: Date
  currentPeriodEnd: Date | null
  cancelAt: Date | null
  canceledAt: Date | null
}

export const granting: ReadonlySet<SubscriptionStatus> = new Set(['trialing', 'active', 'past_due'])

/** The team's subscription among its rows: one that grants access, else the newest. */
export function pickCurrent<T extends { status: SubscriptionStatus; createdAt: Date }>(
  rows: readonly T[],
): T | null {
  let best: T | null = null
  for (const row of rows) {
    if (best === null) best = row
    else if (granting.has(row.status) !== granting.has(best.status)) {
      if (granting.has(row.status)) best = row
    } else if (row.createdAt.getTime() > best.createdAt.getTime()) best = row
  }
  return best
}

/** A team's entitlements for a member: Free (× 1) without a subscription that grants access. */
export function teamEntitlements(
  workspaceId: string,
  role: WorkspaceRole,
  current: Pick<TeamPlanFacts, 'plan' | 'status' | 'quantity'> | null,
): Entitlements {
  const grants = current !== null && granting.has(current.status)
  const seats = grants && plans[current.plan].perSeat ? current.quantity : 1
  return entitlementsOf(current === null ? null : { plan: current.plan, status: current.status }, {
    id: workspaceId,
    kind: 'team',
    role,
    seats,
  })
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString())

/** `GET /api/billing/subscription` in a team: owners and admins see it all, members the plan. */
export function teamSubscriptionResponse(
  entitlements: Entitlements,
  current: TeamPlanFacts | null,
  role: WorkspaceRole,
): SubscriptionResponse {
  if (current === null || entitlements.plan === 'free') return { subscription: null, entitlements }
  const full = role !== 'member'
  return {
    subscription: {
      plan: current.plan,
      status: current.status,
      currentPeriodEnd: full ? iso(current.currentPeriodEnd) : null,
      cancelAt: full ? iso(current.cancelAt) : null,
      canceledAt: full ? iso(current.canceledAt) : null,
      ...(plans[current.plan].perSeat ? { seats: current.quantity } : {}),
    },
    entitlements,
  }
}

/** Personal entitlements, naming the personal workspace they are for. */
export function personalEntitlements(
  entitlements: Entitlements,
  workspaceId: string,
): Entitlements {
  return {
    ...entitlements,
    workspace: { id: workspaceId, kind: 'personal', role: 'owner', seats: 1 },
  }
}
