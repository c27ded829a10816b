import { act, cleanup, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ada, apiError, fakeBff, renderPage, signedInBody } from '../../../testing/render-page.tsx'
import { ConfirmPage } from './confirm-page.tsx'

afterEach(cleanup)

let token = 0
/** A fresh token per test: the page remembers redeemed tokens for the page's lifetime. */
const link = (type: string, next?: string) => {
  token += 1
  const params = new URLSearchParams({ token_hash: `tok${token}`, type })
  if (next !== undefined) params.set('next', next)
  return `/auth/confirm?${params.toString()}`
}

describe('the confirm page', () => {
  it('redeems a sign-up link once, even under StrictMode, then goes to next', async () => {
    const bff = fakeBff({ 'POST /api/auth/confirm': Response.json(signedInBody()) })
    const { platform, refreshes } = renderPage(<ConfirmPage />, {
      path: link('signup', `${window.location.origin}/billing`),
      bff,
      refreshTo: ada,
    })
    expect(screen.getByRole('status').textContent).toContain('Confirming your email address…')
    await waitFor(() =>
      expect(platform.navigations.at(-1)).toEqual({ to: '/billing', replace: true }),
    )
    expect(bff.callsTo('POST /api/auth/confirm')).toHaveLength(1)
    // Moving on changed the address; the page does not read it again as a broken link.
    await act(async () => undefined)
    expect(platform.navigations).toHaveLength(1)
    expect(screen.queryByRole('alert')).toBeNull()
    expect(bff.calls[0]?.body).toEqual({ tokenHash: `tok${token}`, type: 'signup' })
    expect(refreshes()).toBe(1)
    expect(platform.notices[0]?.message).toBe(
      'Your email address is confirmed. Welcome to Tessera.',
    )
  })

  it('sends a recovery link to the new-password page whatever next says', async () => {
    const bff = fakeBff({
      'POST /api/auth/confirm': Response.json(signedInBody({ recovery: true })),
    })
    const { platform } = renderPage(<ConfirmPage />, {
      path: link('recovery', `${window.location.origin}/billing`),
      bff,
    })
    await waitFor(() =>
      expect(platform.navigations.at(-1)).toEqual({ to: '/auth/reset-password', replace: true }),
    )
  })

  it('goes to the assistant when next is the site root or another site', async () => {
    const bff = fakeBff({ 'POST /api/auth/confirm': Response.json(signedInBody()) })
    const { platform } = renderPage(<ConfirmPage />, {
      path: link('magiclink', 'https://evil.example/'),
      bff,
    })
    await waitFor(() =>
      expect(platform.navigations.at(-1)).toEqual({ to: '/assistant', replace: true }),
    )
  })

  it('explains an expired link and offers the matching next step', async () => {
    const bff = fakeBff({ 'POST /api/auth/confirm': apiError('link_expired') })
    const { platform } = renderPage(<ConfirmPage />, { path: link('recovery'), bff })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toMatch(/expired or has already been used/)
    await waitFor(() => expect(document.activeElement).toBe(alert))
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This link did not work')
    const step = screen.getByRole('link', { name: 'Ask for a new reset link' })
    expect(step.getAttribute('href')).toBe('/auth/forgot-password')
    expect(platform.navigations).toEqual([])
  })

  it('does not call the BFF for a link with no token', async () => {
    const bff = fakeBff({})
    renderPage(<ConfirmPage />, { path: '/auth/confirm?type=signup', bff })
    expect((await screen.findByRole('alert')).textContent).toMatch(/incomplete or damaged/)
    expect(bff.calls).toEqual([])
  })

  it('offers to try again when the server could not be reached', async () => {
    let tries = 0
    const bff = fakeBff({
      'POST /api/auth/confirm': () => {
        tries += 1
        return tries === 1 ? apiError('upstream_unavailable') : Response.json(signedInBody())
      },
    })
    const { platform } = renderPage(<ConfirmPage />, { path: link('magiclink'), bff })
    ;(await screen.findByRole('button', { name: 'Try again' })).click()
    await waitFor(() => expect(platform.navigations.at(-1)?.to).toBe('/assistant'))
    expect(tries).toBe(2)
  })
})
