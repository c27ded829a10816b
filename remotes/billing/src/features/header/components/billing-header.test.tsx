import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  apiError,
  entitlementsFor,
  fakeBff,
  renderPage,
  signedIn,
  signedOut,
  watchRedirects,
} from '../../../testing/render-page.tsx'
import { BillingHeader, describeChange } from './billing-header.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const badge = () => screen.queryByRole('link', { name: /^Current plan:/ })
const announced = () => screen.getByRole('status').textContent

describe('the billing header slot', () => {
  it('shows nothing to signed-out visitors or while the session is read', () => {
    const { platform } = renderPage(<BillingHeader />, { session: signedOut })
    expect(badge()).toBeNull()
    act(() => platform.setSession({ status: 'loading', user: null }))
    expect(badge()).toBeNull()
  })

  it('shows a signed-in user’s plan as a link to billing', () => {
    const { platform } = renderPage(<BillingHeader />, { session: signedIn('free') })
    const link = badge()!
    expect(link.textContent).toBe('Free')
    expect(link.getAttribute('aria-label')).toBe('Current plan: Free. Open billing')
    fireEvent.click(link)
    expect(platform.navigations).toEqual([{ to: '/billing', replace: false }])
    expect(announced()).toBe('')
  })

  it('turns Pro as soon as the session’s entitlements do, and says so to screen readers', () => {
    const { platform } = renderPage(<BillingHeader />, { session: signedIn('free') })
    act(() => platform.setSession(signedIn('pro'), null))
    expect(badge()?.textContent).toBe('Pro')
    expect(badge()?.className).toContain('plan-badge--arrived')
    expect(announced()).toBe('Your plan is now Pro.')
  })

  it('appears when someone signs in, without announcing a change', () => {
    const { platform } = renderPage(<BillingHeader />, { session: signedOut })
    act(() => platform.setSession(signedIn('team'), 'SIGNED_IN'))
    expect(badge()?.textContent).toBe('Team')
    expect(announced()).toBe('')
  })

  it('shows the compact fix-payment banner while a payment has failed, and it opens the portal', async () => {
    const redirects = watchRedirects()
    const bff = fakeBff({
      'POST /api/billing/portal': Response.json({ url: 'http://stripe.test/portal/bps_1' }),
    })
    const { platform } = renderPage(<BillingHeader />, { session: signedIn('pro'), bff })
    expect(screen.queryByRole('button', { name: 'Fix payment' })).toBeNull()
    act(() => platform.setSession(signedIn('pro', 'past_due')))
    expect(screen.getByText('Payment failed')).toBeTruthy()
    expect(announced()).toMatch(/Your last payment failed/)
    expect(badge()?.textContent).toBe('Pro')
    fireEvent.click(screen.getByRole('button', { name: 'Fix payment' }))
    await waitFor(() => expect(redirects).toEqual(['http://stripe.test/portal/bps_1']))
  })

  it('tells, as a notice, why the portal did not open from the header', async () => {
    const bff = fakeBff({ 'POST /api/billing/portal': apiError('upstream_timeout') })
    const { platform } = renderPage(<BillingHeader />, {
      session: signedIn('pro', 'past_due'),
      bff,
    })
    fireEvent.click(screen.getByRole('button', { name: 'Fix payment' }))
    await waitFor(() => expect(platform.notices).toHaveLength(1))
    expect(platform.notices[0]).toEqual({
      kind: 'error',
      code: 'upstream_timeout',
      message:
        'The billing portal could not be opened. The payment service took too long to answer. Try again in a minute.',
    })
    expect(screen.getByRole('button', { name: 'Fix payment' }).hasAttribute('disabled')).toBe(false)
  })
})

describe('describeChange', () => {
  it('names a new plan, a failed payment and a fixed one, and stays quiet otherwise', () => {
    const free = entitlementsFor('free')
    const pro = entitlementsFor('pro')
    const proPastDue = entitlementsFor('pro', 'past_due')
    expect(describeChange(free, pro)).toBe('Your plan is now Pro.')
    expect(describeChange(pro, proPastDue)).toMatch(/^Your last payment failed/)
    expect(describeChange(proPastDue, pro)).toBe('Your payment went through.')
    expect(describeChange(pro, pro)).toBe('')
  })
})
