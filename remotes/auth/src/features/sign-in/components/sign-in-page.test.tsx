import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ada,
  apiError,
  deferred,
  fakeBff,
  renderPage,
  signedInBody,
} from '../../../testing/render-page.tsx'
import { usePlatform } from '@tessera/plugin-react/platform'
import AuthRoutes from '../../account/components/auth-routes.tsx'
import { SignInPage } from './sign-in-page.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const fill = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } })
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Sign in' }))

describe('the sign-in page', () => {
  it('checks the email shape once the field is left, not while it is first typed', () => {
    renderPage(<SignInPage />)
    const email = screen.getByLabelText('Email address')
    fill('Email address', 'ada@')
    expect(email.getAttribute('aria-invalid')).toBeNull()
    fireEvent.blur(email)
    expect(email.getAttribute('aria-invalid')).toBe('true')
    const described = email.getAttribute('aria-describedby') ?? ''
    expect(document.getElementById(described)?.textContent).toMatch(/valid email address/)
    fill('Email address', 'ada@example.com')
    expect(email.getAttribute('aria-invalid')).toBeNull()
  })

  it('says why the person was signed out when it was not their own doing', () => {
    renderPage(<SignInPage />, {
      session: { status: 'signed-out', user: null, reason: 'other-device' },
    })
    expect(screen.getByRole('status').textContent).toBe(
      'You were signed out from another device. Sign in again to continue.',
    )
    cleanup()
    renderPage(<SignInPage />, { session: { status: 'signed-out', user: null, reason: 'expired' } })
    expect(screen.getByRole('status').textContent).toBe(
      'Your session expired. Sign in again to continue.',
    )
    cleanup()
    renderPage(<SignInPage />, { session: { status: 'signed-out', user: null } })
    expect(screen.queryByText(/signed out|expired/)).toBeNull()
  })

  it('sends nothing and focuses the first invalid field when submitted empty', () => {
    const bff = fakeBff({})
    renderPage(<SignInPage />, { bff })
    submit()
    expect(bff.calls).toEqual([])
    expect(document.activeElement).toBe(screen.getByLabelText('Email address'))
    expect(screen.getByText('Enter your password.')).toBeTruthy()
  })

  it('sends one request however often the button is pressed, and shows it is busy', async () => {
    const answer = deferred<Response>()
    const bff = fakeBff({ 'POST /api/auth/sign-in': () => answer.promise })
    renderPage(<SignInPage />, { bff, refreshTo: ada })
    fill('Email address', 'ada@example.com')
    fill('Password', 'correct horse')
    const form = screen.getByRole('form', { name: 'Sign in with your password' })
    fireEvent.submit(form)
    fireEvent.submit(form)
    const button = await screen.findByRole('button', { name: 'Signing in…' })
    expect(button.hasAttribute('disabled')).toBe(true)
    expect(button.getAttribute('aria-busy')).toBe('true')
    fireEvent.click(button)
    expect(bff.callsTo('POST /api/auth/sign-in')).toHaveLength(1)
    expect(bff.calls[0]?.body).toEqual({ email: 'ada@example.com', password: 'correct horse' })
    await act(async () => answer.resolve(Response.json(signedInBody())))
  })

  it('says email or password is wrong in an alert that takes focus, with a way to reset', async () => {
    const bff = fakeBff({ 'POST /api/auth/sign-in': apiError('invalid_credentials') })
    renderPage(<SignInPage />, { bff })
    fill('Email address', 'ada@example.com')
    fill('Password', 'wrong password')
    submit()
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toMatch(/email address or password is not correct/)
    await waitFor(() => expect(document.activeElement).toBe(alert))
    expect(screen.getByRole('link', { name: 'Reset your password' }).getAttribute('href')).toBe(
      '/auth/forgot-password',
    )
    expect(screen.getByRole('button', { name: 'Sign in' }).hasAttribute('disabled')).toBe(false)
  })

  it('puts the BFF’s field issues next to their fields and focuses the first one', async () => {
    const bff = fakeBff({
      'POST /api/auth/sign-in': apiError('validation_failed', {
        issues: [
          { path: 'password', message: 'The password contains a character that cannot be used.' },
        ],
      }),
    })
    renderPage(<SignInPage />, { bff })
    fill('Email address', 'ada@example.com')
    fill('Password', 'odd password')
    submit()
    const password = screen.getByLabelText('Password')
    await waitFor(() => expect(document.activeElement).toBe(password))
    expect(password.getAttribute('aria-invalid')).toBe('true')
    expect(screen.getByText('The password contains a character that cannot be used.')).toBeTruthy()
    expect(screen.queryByRole('alert')).toBeNull()
    // Typing a new value clears what the server said about the old one.
    fill('Password', 'another password')
    expect(password.getAttribute('aria-invalid')).toBeNull()
  })

  it('holds the form back for as long as the BFF asks after too many attempts', async () => {
    const bff = fakeBff({
      'POST /api/auth/sign-in': apiError('rate_limited', { retryAfterSeconds: 30 }),
    })
    renderPage(<SignInPage />, { bff })
    fill('Email address', 'ada@example.com')
    fill('Password', 'wrong password')
    // A clock that moves a millisecond at every reading: the countdown starts from one of them.
    let clock = Date.now()
    vi.spyOn(Date, 'now').mockImplementation(() => ++clock)
    submit()
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Try again in 30 seconds.')
    const button = screen.getByRole('button', { name: /^Sign in \(\d+ s\)$/ })
    expect(button.hasAttribute('disabled')).toBe(true)
    fireEvent.submit(screen.getByRole('form', { name: 'Sign in with your password' }))
    expect(bff.calls).toHaveLength(1)
  })

  it('offers to resend the confirmation link to an address not yet confirmed', async () => {
    const bff = fakeBff({
      'POST /api/auth/sign-in': apiError('email_not_confirmed', {
        issues: [{ path: 'email', message: 'Confirm this address first.' }],
      }),
      'POST /api/auth/magic-link': Response.json(
        { status: 'check_email', email: 'ada@example.com' },
        { status: 202 },
      ),
    })
    const { platform } = renderPage(<SignInPage />, { bff, path: '/auth/sign-in?next=%2Fbilling' })
    fill('Email address', 'ada@example.com')
    fill('Password', 'correct horse')
    submit()
    expect(await screen.findByText('Confirm this address first.')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Send the confirmation link again' }))
    await waitFor(() => expect(platform.navigations.at(-1)?.to).toBe('/auth/check-email'))
    expect(bff.callsTo('POST /api/auth/magic-link')[0]?.body).toEqual({
      email: 'ada@example.com',
      next: '/billing',
    })
  })

  it('signs in, tells the platform, and goes back to the page that asked', async () => {
    const bff = fakeBff({ 'POST /api/auth/sign-in': Response.json(signedInBody()) })
    const { platform, refreshes } = renderPage(<SignInPage />, {
      bff,
      path: '/auth/sign-in?next=%2Fbilling%3Ftab%3Dinvoices',
      refreshTo: ada,
    })
    fill('Email address', 'ada@example.com')
    fill('Password', 'correct horse')
    submit()
    await waitFor(() =>
      expect(platform.navigations.at(-1)).toEqual({ to: '/billing?tab=invoices', replace: true }),
    )
    expect(refreshes()).toBe(1)
    expect(platform.notices).toEqual([{ kind: 'success', message: 'Signed in as Ada Lovelace.' }])
    // Leaving changes the address (and `next` with it) before the page unmounts: it leaves once.
    await act(async () => undefined)
    expect(platform.navigations).toHaveLength(1)
  })

  it('ignores a next that leads off the app and goes to the assistant instead', async () => {
    const { platform } = renderPage(<SignInPage />, {
      path: '/auth/sign-in?next=https%3A%2F%2Fevil.example%2F',
      session: ada,
    })
    await waitFor(() =>
      expect(platform.navigations.at(-1)).toEqual({ to: '/assistant', replace: true }),
    )
  })

  it('follows a move to the same page with another query', async () => {
    // As the user menu's sign-out does from its own root, after the page went to ?next=.
    function Elsewhere() {
      const platform = usePlatform()
      return (
        <button type="button" onClick={() => platform.navigate('/auth/sign-in')}>
          elsewhere
        </button>
      )
    }
    renderPage(
      <>
        <AuthRoutes />
        <Elsewhere />
      </>,
      { path: '/auth/sign-in?next=%2Fbilling' },
    )
    expect(screen.getByText('Sign in to continue to the page you asked for.')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'elsewhere' }))
    expect(await screen.findByText('Welcome back. Sign in to continue.')).toBeTruthy()
  })
})
