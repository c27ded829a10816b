import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ada, apiError, fakeBff, renderPage, signedInBody } from '../../../testing/render-page.tsx'
import AuthRoutes from '../../account/components/auth-routes.tsx'
import { ProfilePage } from './profile-page.tsx'

afterEach(cleanup)

const form = (name: string) => screen.getByRole('form', { name })

describe('the profile page', () => {
  it('sends a signed-out visitor to sign in and back', async () => {
    const { platform } = renderPage(<AuthRoutes />, { path: '/auth/profile' })
    expect(await screen.findByRole('heading', { name: 'Sign in to Tessera' })).toBeTruthy()
    expect(platform.navigations.length).toBeGreaterThan(0)
    // StrictMode runs the effect twice in tests; each run goes to the same place.
    for (const navigation of platform.navigations) {
      expect(navigation).toEqual({ to: '/auth/sign-in?next=%2Fauth%2Fprofile', replace: true })
    }
  })

  it('saves the display name and re-reads the session so the header shows it', async () => {
    const renamed = signedInBody()
    renamed.profile.displayName = 'Countess'
    renamed.user.displayName = 'Countess'
    const bff = fakeBff({
      'GET /api/me': Response.json(signedInBody()),
      'PATCH /api/me/profile': Response.json(renamed),
    })
    const { platform, refreshes } = renderPage(<ProfilePage />, {
      path: '/auth/profile',
      session: ada,
      bff,
    })
    const field = await within(
      await screen.findByRole('form', { name: 'Your name' }),
    ).findByLabelText('Display name')
    expect((field as HTMLInputElement).value).toBe('Ada Lovelace')
    fireEvent.change(field, { target: { value: 'Countess' } })
    fireEvent.click(within(form('Your name')).getByRole('button', { name: 'Save name' }))
    await waitFor(() => expect(refreshes()).toBe(1))
    expect(bff.callsTo('PATCH /api/me/profile')[0]?.body).toEqual({ displayName: 'Countess' })
    expect(platform.notices.at(-1)).toEqual({
      kind: 'success',
      message: 'Your display name is saved.',
    })
  })

  it('asks for the current password and shows the BFF’s word about it next to that field', async () => {
    const bff = fakeBff({
      'GET /api/me': Response.json(signedInBody()),
      'POST /api/me/password': apiError('validation_failed', {
        issues: [{ path: 'currentPassword', message: 'This is not your current password.' }],
      }),
    })
    renderPage(<ProfilePage />, { path: '/auth/profile', session: ada, bff })
    const passwordForm = await screen.findByRole('form', { name: 'Password' })
    const inForm = within(passwordForm)
    fireEvent.change(inForm.getByLabelText('Current password'), { target: { value: 'guess' } })
    fireEvent.change(inForm.getByLabelText('New password'), {
      target: { value: 'correct horse battery' },
    })
    fireEvent.change(inForm.getByLabelText('Confirm new password'), {
      target: { value: 'correct horse battery' },
    })
    fireEvent.click(inForm.getByRole('button', { name: 'Change password' }))
    const current = inForm.getByLabelText('Current password')
    await waitFor(() => expect(document.activeElement).toBe(current))
    expect(inForm.getByText('This is not your current password.')).toBeTruthy()
    expect(bff.callsTo('POST /api/me/password')[0]?.body).toEqual({
      password: 'correct horse battery',
      currentPassword: 'guess',
    })
  })

  it('shows an address change waiting for its link, and refuses the current address', async () => {
    const bff = fakeBff({
      'GET /api/me': Response.json(signedInBody({ pendingEmail: 'new@example.com' })),
    })
    renderPage(<ProfilePage />, { path: '/auth/profile', session: ada, bff })
    const emailForm = await screen.findByRole('form', { name: 'Email' })
    expect(emailForm.textContent).toContain('Waiting for you to confirm new@example.com')
    const field = within(emailForm).getByLabelText('New email address')
    fireEvent.change(field, { target: { value: 'ADA@example.com' } })
    fireEvent.click(within(emailForm).getByRole('button', { name: 'Change email' }))
    expect(within(emailForm).getByText('This is your email address already.')).toBeTruthy()
    expect(bff.callsTo('POST /api/me/email')).toEqual([])
  })

  it('sends a new address with the current password, which it asks for first', async () => {
    const bff = fakeBff({
      'GET /api/me': Response.json(signedInBody({})),
      'POST /api/me/email': Response.json(
        { status: 'check_email', email: 'new@example.com' },
        { status: 202 },
      ),
    })
    renderPage(<ProfilePage />, { path: '/auth/profile', session: ada, bff })
    const emailForm = await screen.findByRole('form', { name: 'Email' })
    fireEvent.change(within(emailForm).getByLabelText('New email address'), {
      target: { value: 'new@example.com' },
    })
    fireEvent.click(within(emailForm).getByRole('button', { name: 'Change email' }))
    expect(bff.callsTo('POST /api/me/email')).toEqual([])
    fireEvent.change(within(emailForm).getByLabelText('Current password'), {
      target: { value: 'guess' },
    })
    fireEvent.click(within(emailForm).getByRole('button', { name: 'Change email' }))
    await waitFor(() =>
      expect(bff.callsTo('POST /api/me/email')[0]?.body).toEqual({
        email: 'new@example.com',
        next: '/auth/profile',
        currentPassword: 'guess',
      }),
    )
  })
})
