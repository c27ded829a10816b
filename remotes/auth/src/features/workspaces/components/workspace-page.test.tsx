import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionState } from '@tessera/contracts'
import type {
  WorkspaceMember,
  WorkspaceRole,
  WorkspaceSummary,
} from '@tessera/contracts/workspaces'
import { ada, apiError, fakeBff, renderPage } from '../../../testing/render-page.tsx'
import { WorkspacePage } from './workspace-page.tsx'

afterEach(cleanup)

const teamId = '11111111-1111-4111-8111-111111111111'
const adaId = 'u1'
const graceId = '22222222-2222-4222-8222-222222222222'
const alanId = '33333333-3333-4333-8333-333333333333'

const member = (userId: string, name: string, role: WorkspaceRole): WorkspaceMember => ({
  userId,
  email: `${name.split(' ')[0]?.toLowerCase()}@example.com`,
  displayName: name,
  role,
  monthlyTokenCap: null,
  joinedAt: '2026-11-01T10:00:00.000Z',
})

const team = (role: WorkspaceRole): WorkspaceSummary => ({
  id: teamId,
  name: 'Analytical Engines',
  kind: 'team',
  role,
  memberCount: 3,
  current: true,
  createdAt: '2026-11-01T10:00:00.000Z',
})

/** A team of three, seen by Ada in `role`. */
function teamBff(role: WorkspaceRole, extra: Parameters<typeof fakeBff>[0] = {}) {
  let members = [
    member(adaId, 'Ada Lovelace', role),
    member(graceId, 'Grace Hopper', role === 'owner' ? 'admin' : 'owner'),
    member(alanId, 'Alan Turing', 'member'),
  ]
  return fakeBff({
    'GET /api/workspaces': () => Response.json({ workspaces: [team(role)], currentId: teamId }),
    [`GET /api/workspaces/${teamId}/members`]: () => Response.json({ members }),
    [`GET /api/workspaces/${teamId}/invites`]: Response.json({
      invites: [
        {
          id: '44444444-4444-4444-8444-444444444444',
          email: 'katherine@example.com',
          role: 'member',
          state: 'pending',
          invitedBy: 'Ada Lovelace',
          createdAt: '2026-11-25T10:00:00.000Z',
          expiresAt: '2026-12-02T10:00:00.000Z',
          sentCount: 1,
          lastSentAt: '2026-11-25T10:00:00.000Z',
        },
      ],
    }),
    [`PATCH /api/workspaces/${teamId}/members/${alanId}`]: (call) => {
      const next = (call.body as { role: WorkspaceRole }).role
      members = members.map((m) => (m.userId === alanId ? { ...m, role: next } : m))
      return Response.json({ member: members[2] })
    },
    [`DELETE /api/workspaces/${teamId}/members/${alanId}`]: () => {
      members = members.filter((m) => m.userId !== alanId)
      return new Response(null, { status: 204 })
    },
    ...extra,
  })
}

const session: SessionState = ada

async function rowOf(name: string) {
  const list = await screen.findByRole('list', { name: 'Members of Analytical Engines' })
  const row = within(list)
    .getAllByRole('listitem')
    .find((item) => item.textContent?.includes(name))
  if (row === undefined) throw new Error(`no row for ${name}`)
  return row
}

describe('the members page', () => {
  it('lets an owner change any role, remove others, rename and see the invites', async () => {
    renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff: teamBff('owner'),
    })
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Analytical Engines' }),
    ).toBeTruthy()
    const grace = await rowOf('Grace Hopper')
    const select = within(grace).getByRole('combobox', { name: 'Role of Grace Hopper' })
    expect([...select.querySelectorAll('option')].map((o) => o.textContent)).toEqual([
      'Owner',
      'Admin',
      'Member',
    ])
    expect(within(grace).getByRole('button', { name: 'Remove' })).toBeTruthy()
    // Nobody removes themselves: leaving is its own action.
    expect(within(await rowOf('Ada Lovelace')).queryByRole('button', { name: 'Remove' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Leave workspace' })).toBeTruthy()
    expect(screen.getByLabelText('Workspace name')).toBeTruthy()
    const invites = screen.getByRole('list', { name: 'Pending invites' })
    expect(invites.textContent).toContain('katherine@example.com')
    expect(within(invites).getByRole('button', { name: 'Resend' })).toBeTruthy()
  })

  it('lets an admin promote a member but not touch an owner', async () => {
    const bff = teamBff('admin')
    const { platform } = renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff,
    })
    const grace = await rowOf('Grace Hopper')
    expect(within(grace).queryByRole('combobox')).toBeNull()
    expect(within(grace).queryByRole('button', { name: 'Remove' })).toBeNull()
    expect(grace.textContent).toContain('Owner')

    const alan = await rowOf('Alan Turing')
    const select = within(alan).getByRole('combobox', { name: 'Role of Alan Turing' })
    expect([...select.querySelectorAll('option')].map((o) => o.textContent)).toEqual([
      'Admin',
      'Member',
    ])
    fireEvent.change(select, { target: { value: 'admin' } })
    await waitFor(() =>
      expect(platform.notices.at(-1)?.message).toBe(
        'Alan Turing is now an admin of Analytical Engines.',
      ),
    )
    expect(bff.callsTo(`PATCH /api/workspaces/${teamId}/members/${alanId}`)[0]?.body).toEqual({
      role: 'admin',
    })
    // Now an admin, Alan is beyond what an admin may change.
    await waitFor(async () =>
      expect(within(await rowOf('Alan Turing')).queryByRole('combobox')).toBeNull(),
    )
  })

  it('shows a member the list only: no roles to change, nobody to remove, no invites', async () => {
    const bff = teamBff('member')
    renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff,
    })
    const list = await screen.findByRole('list', { name: 'Members of Analytical Engines' })
    expect(within(list).getAllByRole('listitem')).toHaveLength(3)
    expect(within(list).queryByRole('combobox')).toBeNull()
    expect(within(list).queryByRole('button', { name: 'Remove' })).toBeNull()
    expect(screen.queryByRole('list', { name: 'Pending invites' })).toBeNull()
    expect(screen.queryByLabelText('Workspace name')).toBeNull()
    expect(bff.callsTo(`GET /api/workspaces/${teamId}/invites`)).toHaveLength(0)
    expect(screen.getByRole('button', { name: 'Leave workspace' })).toBeTruthy()
  })

  it('removes a member after asking, and lists the team without them', async () => {
    const bff = teamBff('owner')
    const { platform } = renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff,
    })
    const alan = await rowOf('Alan Turing')
    fireEvent.click(within(alan).getByRole('button', { name: 'Remove' }))
    const group = within(alan).getByRole('group', {
      name: 'Remove Alan Turing from Analytical Engines?',
    })
    fireEvent.click(within(group).getByRole('button', { name: 'Yes, remove' }))
    await waitFor(() => expect(screen.queryByText('Alan Turing')).toBeNull())
    expect(platform.notices.at(-1)?.message).toBe(
      'Alan Turing is no longer a member of Analytical Engines.',
    )
  })

  it('asks to confirm an extra seat, with its cost, before inviting past the paid seats', async () => {
    const bff = teamBff('owner', {
      [`POST /api/workspaces/${teamId}/invites`]: (call) =>
        (call.body as { confirmExtraSeat?: boolean }).confirmExtraSeat === true
          ? Response.json({
              invite: {},
              emailSent: true,
              message: 'Invite sent to joan@example.com. The link works for 7 days.',
            })
          : apiError('seat_confirmation_required', {
              seats: 3,
              needed: 4,
              preview: { prorationAmount: 1250, nextInvoiceTotal: 7250, currency: 'usd' },
            }),
    })
    renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff,
    })
    const form = await screen.findByRole('form', { name: 'Invite someone' })
    fireEvent.change(within(form).getByLabelText('Email address'), {
      target: { value: 'joan@example.com' },
    })
    fireEvent.click(within(form).getByRole('button', { name: 'Send invite' }))
    const question = await within(form).findByRole('region', { name: 'Confirm an extra seat' })
    expect(question.textContent).toContain(
      'The team pays for 3 seats; inviting joan@example.com needs 4 seats.',
    )
    expect(question.textContent).toContain(
      'Prorated for the rest of this period: $12.50. Next invoice: $72.50.',
    )
    expect(within(form).queryByRole('alert')).toBeNull()
    fireEvent.click(within(question).getByRole('button', { name: 'Add a seat and send invite' }))
    await waitFor(() =>
      expect(within(form).getByRole('status').textContent).toBe(
        'Invite sent to joan@example.com. The link works for 7 days.',
      ),
    )
    expect(within(form).queryByRole('region', { name: 'Confirm an extra seat' })).toBeNull()
    expect(bff.callsTo(`POST /api/workspaces/${teamId}/invites`).map((c) => c.body)).toEqual([
      { email: 'joan@example.com', role: 'member' },
      { email: 'joan@example.com', role: 'member', confirmExtraSeat: true },
    ])
  })

  it("shows the BFF's refusal next to Leave, with its reference", async () => {
    const bff = teamBff('owner', {
      [`POST /api/workspaces/${teamId}/leave`]: apiError('last_owner'),
    })
    const { platform } = renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff,
    })
    fireEvent.click(await screen.findByRole('button', { name: 'Leave workspace' }))
    fireEvent.click(screen.getByRole('button', { name: 'Yes, leave' }))
    const region = screen.getByRole('region', { name: 'Leave this workspace' })
    const alert = await within(region).findByRole('alert')
    expect(alert.textContent).toContain(
      'A workspace needs at least one owner. Make another member an owner first, then try again.',
    )
    expect(alert.textContent).toContain('req-1')
    expect(alert.dataset.code).toBe('last_owner')
    expect(platform.navigations).toEqual([])
    await waitFor(() => expect(document.activeElement).toBe(alert))
  })

  it('reads the members again when another member changes the workspace', async () => {
    const bff = teamBff('owner')
    const { platform } = renderPage(<WorkspacePage id={teamId} />, {
      path: `/auth/workspaces/${teamId}`,
      session,
      bff,
    })
    await rowOf('Alan Turing')
    const reads = () => bff.callsTo(`GET /api/workspaces/${teamId}/members`).length
    const before = reads()
    platform.emit({
      type: 'workspace.changed',
      data: { workspaceId: teamId, change: 'members', sessionId: null },
    })
    await waitFor(() => expect(reads()).toBe(before + 1))
  })
})
