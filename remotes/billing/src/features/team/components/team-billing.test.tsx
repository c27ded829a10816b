import { act, cleanup, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Entitlements, SeatPreview, SubscriptionResponse } from '@tessera/contracts'
import { entitlementsOf } from '@tessera/contracts'
import {
  fakeBff,
  plansBody,
  renderPage,
  signedIn,
  subscriptionBody,
} from '../../../testing/render-page.tsx'
import { OverviewPage } from '../../overview/components/overview-page.tsx'
import { PlansPage } from '../../plans/components/plans-page.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const teamId = '6f1c1b4e-8d0a-4c57-9a55-1f0d6f7e2a10'

/** Entitlements in the team workspace, as /api/me reports them. */
function inTeam(role: 'owner' | 'admin' | 'member', seats: number | null): Entitlements {
  return entitlementsOf(seats === null ? null : { plan: 'team', status: 'active' }, {
    id: teamId,
    kind: 'team',
    role,
    seats: seats ?? 1,
  })
}

const session = (entitlements: Entitlements) => ({ ...signedIn('free'), entitlements })

const workspacesBody = (memberCount: number) => ({
  currentId: teamId,
  workspaces: [
    {
      id: teamId,
      name: 'Acme',
      kind: 'team',
      role: 'owner',
      memberCount,
      current: true,
      createdAt: '2026-11-01T00:00:00.000Z',
    },
  ],
})

function teamSubscription(role: 'owner' | 'member', seats: number): SubscriptionResponse {
  const body = subscriptionBody('team')
  return {
    subscription: {
      ...body.subscription!,
      seats,
      ...(role === 'member' ? { currentPeriodEnd: null } : {}),
    },
    entitlements: inTeam(role, seats),
  }
}

const preview: SeatPreview = {
  seats: 3,
  quantity: 3,
  members: 3,
  prorationAmount: 750,
  nextInvoiceTotal: 5250,
  currency: 'usd',
  lines: [
    {
      description: 'Remaining time on 3 × Tessera Team',
      amount: 750,
      quantity: 3,
      proration: true,
      periodStart: '2026-11-26T00:00:00.000Z',
      periodEnd: '2026-12-22T00:00:00.000Z',
    },
    {
      description: '3 × Tessera Team',
      amount: 4500,
      quantity: 3,
      proration: false,
      periodStart: '2026-12-22T00:00:00.000Z',
      periodEnd: '2027-01-22T00:00:00.000Z',
    },
  ],
}

describe('the plans page in a team', () => {
  it('prices the Team plan by the team’s members and sends owners to its checkout', async () => {
    const bff = fakeBff({
      'GET /api/billing/plans': () => Response.json(plansBody('free')),
      'GET /api/workspaces': () => Response.json(workspacesBody(1)),
      'POST /api/billing/checkout': Response.json({ url: 'http://127.0.0.1:12111/checkout/cs_1' }),
    })
    renderPage(<PlansPage />, {
      path: '/billing/plans',
      session: session(inTeam('owner', null)),
      bff,
    })
    const list = await screen.findByRole('list', { name: 'Plans' })
    const team = within(list).getByRole('listitem', { name: 'Team' })
    expect(
      await within(team).findByText('1 member: 2 seats (the minimum) × $15 = $30 a month'),
    ).toBeTruthy()
    expect(within(team).getByRole('button', { name: 'Subscribe to Team' })).toBeTruthy()
    const pro = within(list).getByRole('listitem', { name: 'Pro' })
    expect(pro.textContent).toContain('Pro is for your personal workspace.')
    within(team).getByRole('button', { name: 'Subscribe to Team' }).click()
    await vi.waitFor(() => expect(bff.callsTo('POST /api/billing/checkout')).toHaveLength(1))
    expect(bff.callsTo('POST /api/billing/checkout')[0]?.body).toEqual({
      plan: 'team',
      workspaceId: teamId,
    })
  })

  it('tells a member to ask an owner or admin', async () => {
    const bff = fakeBff({
      'GET /api/billing/plans': () => Response.json(plansBody('free')),
      'GET /api/workspaces': () => Response.json(workspacesBody(3)),
    })
    renderPage(<PlansPage />, {
      path: '/billing/plans',
      session: session(inTeam('member', null)),
      bff,
    })
    const list = await screen.findByRole('list', { name: 'Plans' })
    const team = within(list).getByRole('listitem', { name: 'Team' })
    expect(team.textContent).toContain('Ask an owner or admin of this team to change its plan.')
    expect(within(team).queryByRole('button')).toBeNull()
  })
})

describe('the billing page in a team', () => {
  it('shows owners the seats and the next invoice with its prorations', async () => {
    const bff = fakeBff({
      'GET /api/billing/subscription': () => Response.json(teamSubscription('owner', 3)),
      'GET /api/billing/seats/preview': () => Response.json(preview),
    })
    renderPage(<OverviewPage />, { session: session(inTeam('owner', 3)), bff })
    const plan = await screen.findByRole('region', { name: 'Your team’s plan' })
    expect(plan.textContent).toContain('3 seats, one per member of the team.')
    const invoice = await screen.findByRole('region', { name: 'Next invoice' })
    expect(await within(invoice).findByText('$52.50')).toBeTruthy()
    expect(invoice.textContent).toContain('(prorated)')
  })

  it('shows members the plan and status only', async () => {
    const bff = fakeBff({
      'GET /api/billing/subscription': () => Response.json(teamSubscription('member', 3)),
    })
    renderPage(<OverviewPage />, { session: session(inTeam('member', 3)), bff })
    const plan = await screen.findByRole('region', { name: 'Your team’s plan' })
    expect(plan.textContent).toContain('Active')
    expect(within(plan).queryByRole('button', { name: 'Manage billing' })).toBeNull()
    expect(plan.textContent).toContain('The team’s owners and admins manage its billing')
    expect(screen.queryByRole('region', { name: 'Next invoice' })).toBeNull()
    expect(bff.callsTo('GET /api/billing/seats/preview')).toHaveLength(0)
  })

  it('keeps showing its own workspace when news of a team arrives', async () => {
    const personal = entitlementsOf(null, {
      id: 'personal-1',
      kind: 'personal',
      role: 'owner',
      seats: 1,
    })
    const bff = fakeBff({
      'GET /api/billing/subscription': () =>
        Response.json({ subscription: null, entitlements: personal }),
    })
    const { platform } = renderPage(<OverviewPage />, { session: session(personal), bff })
    const plan = await screen.findByRole('region', { name: 'Your plan' })
    act(() => platform.emit({ type: 'billing.subscription', data: teamSubscription('member', 3) }))
    expect(plan.textContent).toContain('You are on the free plan.')
    expect(screen.queryByRole('region', { name: 'Your team’s plan' })).toBeNull()
  })
})
