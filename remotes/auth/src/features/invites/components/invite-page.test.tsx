import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { InvitePreview } from '@tessera/contracts/workspaces'
import { ada, apiError, fakeBff, renderPage } from '../../../testing/render-page.tsx'
import { InvitePage } from './invite-page.tsx'

afterEach(cleanup)

const token = 'A'.repeat(43)
const teamId = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
const preview = (overrides: Partial<InvitePreview> = {}): InvitePreview => ({
  workspaceName: 'Analytical Engines',
  invitedBy: 'Grace Hopper',
  role: 'member',
  state: 'pending',
  expiresAt: '2026-12-02T10:00:00.000Z',
  email: 'ada@example.com',
  forYou: true,
  ...overrides,
})

describe('the invite page', () => {
  it('offers a signed-out visitor to sign in or sign up and come back', async () => {
    renderPage(<InvitePage token={token} />, {
      path: `/auth/invites/${token}`,
      session: { status: 'signed-out', user: null },
    })
    const next = encodeURIComponent(`/auth/invites/${token}`)
    expect((await screen.findByRole('link', { name: 'Sign in' })).getAttribute('href')).toBe(
      `/auth/sign-in?next=${next}`,
    )
    expect(screen.getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe(
      `/auth/sign-up?next=${next}`,
    )
  })

  it('accepts, then opens the workspace with a confirmation', async () => {
    const bff = fakeBff({
      [`GET /api/invites/${token}`]: Response.json(preview()),
      [`POST /api/invites/${token}/accept`]: Response.json({
        workspace: {
          id: teamId,
          name: 'Analytical Engines',
          kind: 'team',
          role: 'member',
          memberCount: 2,
          current: true,
          createdAt: '2026-11-01T10:00:00.000Z',
        },
      }),
    })
    const { platform } = renderPage(<InvitePage token={token} />, {
      path: `/auth/invites/${token}`,
      session: ada,
      bff,
    })
    expect(
      await screen.findByText(
        'Grace Hopper invited ada@example.com to work in Analytical Engines as a member.',
      ),
    ).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Accept and join' }))
    await waitFor(() =>
      expect(platform.navigations).toContainEqual({
        to: `/auth/workspaces/${teamId}`,
        replace: false,
      }),
    )
    expect(platform.notices.at(-1)?.message).toBe(
      'You joined Analytical Engines. You are working in it now.',
    )
  })

  it('says a forwarded link is for another address, and offers no Accept', async () => {
    const bff = fakeBff({
      [`GET /api/invites/${token}`]: Response.json(
        preview({ email: 'g•••@example.com', forYou: false }),
      ),
    })
    renderPage(<InvitePage token={token} />, { path: `/auth/invites/${token}`, session: ada, bff })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('This invite is for another email address')
    expect(alert.dataset.code).toBe('invite_wrong_account')
    expect(screen.queryByRole('button', { name: 'Accept and join' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Sign in with another account' })).toBeTruthy()
  })

  it("shows the BFF's sentence when accepting is refused", async () => {
    const bff = fakeBff({
      [`GET /api/invites/${token}`]: Response.json(preview()),
      [`POST /api/invites/${token}/accept`]: apiError('invite_expired'),
    })
    renderPage(<InvitePage token={token} />, { path: `/auth/invites/${token}`, session: ada, bff })
    fireEvent.click(await screen.findByRole('button', { name: 'Accept and join' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('This invite has expired.')
    expect(alert.textContent).toContain('req-1')
  })
})
