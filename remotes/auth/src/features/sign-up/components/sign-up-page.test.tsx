import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { apiError, fakeBff, renderPage } from '../../../testing/render-page.tsx'
import AuthRoutes from '../../account/components/auth-routes.tsx'

afterEach(cleanup)

const fill = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } })

describe('the sign-up page', () => {
  it('grades the password as it is typed and flags a confirmation that goes wrong at once', () => {
    renderPage(<AuthRoutes />, { path: '/auth/sign-up' })
    expect(screen.getByText('Use at least 8 characters.')).toBeTruthy()
    fill('Password', 'abc')
    expect(screen.getByText('5 more characters needed.')).toBeTruthy()
    fill('Password', 'Correct-horse-9')
    expect(screen.getByText('Strong password.')).toBeTruthy()
    const confirmation = screen.getByLabelText('Confirm password')
    fill('Confirm password', 'Corr')
    expect(confirmation.getAttribute('aria-invalid')).toBeNull()
    fill('Confirm password', 'Corx')
    expect(confirmation.getAttribute('aria-invalid')).toBe('true')
    expect(screen.getByText('The two passwords do not match.')).toBeTruthy()
  })

  it('creates the account and shows where the confirmation went', async () => {
    const bff = fakeBff({
      'POST /api/auth/sign-up': Response.json(
        { status: 'check_email', email: 'ada@example.com' },
        { status: 202 },
      ),
    })
    const { platform } = renderPage(<AuthRoutes />, {
      path: '/auth/sign-up?next=%2Fbilling',
      bff,
    })
    fill('Display name (optional)', '  Ada  ')
    fill('Email address', 'Ada@Example.com')
    fill('Password', 'correct horse battery')
    fill('Confirm password', 'correct horse battery')
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }))
    expect(await screen.findByRole('heading', { name: 'Check your email', level: 1 })).toBeTruthy()
    expect(screen.getByText('ada@example.com')).toBeTruthy()
    expect(bff.calls[0]?.body).toEqual({
      email: 'Ada@Example.com',
      password: 'correct horse battery',
      displayName: 'Ada',
      next: '/billing',
    })
    expect(platform.navigations.at(-1)?.to).toBe('/auth/check-email')
    // The address is kept in memory, not in the URL.
    expect(window.location.search).toBe('')
    // Focus moves to the new page's heading.
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1 })),
    )
  })

  it('says next to the email field that the address is taken, with ways on', async () => {
    const bff = fakeBff({
      'POST /api/auth/sign-up': apiError('email_taken', {
        issues: [{ path: 'email', message: 'An account already uses this email address.' }],
      }),
    })
    renderPage(<AuthRoutes />, { path: '/auth/sign-up', bff })
    fill('Email address', 'ada@example.com')
    fill('Password', 'correct horse battery')
    fill('Confirm password', 'correct horse battery')
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }))
    const email = screen.getByLabelText('Email address')
    await waitFor(() => expect(document.activeElement).toBe(email))
    expect(email.getAttribute('aria-invalid')).toBe('true')
    expect(screen.getByText('An account already uses this email address.')).toBeTruthy()
    const alert = screen.getByRole('alert')
    expect(alert.textContent).toMatch(/Already have an account/)
    expect(screen.getAllByRole('link', { name: 'Sign in' }).length).toBeGreaterThan(0)
  })

  it('puts a weak_password answer next to the password field', async () => {
    const bff = fakeBff({
      'POST /api/auth/sign-up': apiError('weak_password', {
        issues: [{ path: 'password', message: 'Password should contain at least one digit.' }],
      }),
    })
    renderPage(<AuthRoutes />, { path: '/auth/sign-up', bff })
    fill('Email address', 'ada@example.com')
    fill('Password', 'correcthorse')
    fill('Confirm password', 'correcthorse')
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }))
    expect(await screen.findByText('Password should contain at least one digit.')).toBeTruthy()
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Password')))
  })
})
