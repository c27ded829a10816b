import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  apiError,
  deferred,
  fakeBff,
  plansBody,
  renderPage,
  signedIn,
  signedOut,
  watchRedirects,
} from '../../../testing/render-page.tsx'
import { PlansPage } from './plans-page.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const checkoutUrl = 'http://127.0.0.1:12111/checkout/cs_test_1'

function plansBff(
  current: 'free' | 'pro' | 'team' | null,
  extra: Parameters<typeof fakeBff>[0] = {},
) {
  return fakeBff({
    'GET /api/billing/plans': () => Response.json(plansBody(current)),
    'POST /api/billing/checkout': Response.json({ url: checkoutUrl }),
    'POST /api/billing/portal': Response.json({ url: 'http://127.0.0.1:12111/portal/bps_1' }),
    ...extra,
  })
}

const cards = async () => {
  const list = await screen.findByRole('list', { name: 'Plans' })
  return within(list).getAllByRole('listitem', { name: /^(Free|Pro|Team)$/ })
}

describe('the plans page', () => {
  it('shows the three plans in catalogue order with the current one marked', async () => {
    renderPage(<PlansPage />, { path: '/billing/plans', bff: plansBff('free') })
    const [free, pro, team] = await cards()
    expect(free?.textContent).toContain('Current plan')
    expect(free?.textContent).toContain('50,000 AI tokens a month')
    expect(pro?.textContent).toContain('$15')
    expect(pro?.textContent).toContain('Models: GPT-4o and GPT-4o mini')
    expect(team?.textContent).toContain('$15 per seat / month, from 2 seats')
    expect(team?.textContent).toContain('5,000,000 AI tokens a month per seat')
    expect(pro?.textContent).not.toContain('Current plan')
    expect(within(pro!).getByRole('button', { name: 'Subscribe to Pro' })).toBeTruthy()
    expect(within(team!).getByRole('button', { name: 'Subscribe to Team' })).toBeTruthy()
    expect(within(free!).queryByRole('button')).toBeNull()
  })

  it('follows the plan live from the session, without reading the plans again', async () => {
    const bff = plansBff('free')
    const { platform } = renderPage(<PlansPage />, { path: '/billing/plans', bff })
    await cards()
    const reads = bff.callsTo('GET /api/billing/plans').length
    act(() => platform.setSession(signedIn('pro')))
    await waitFor(async () => expect((await cards())[1]?.textContent).toContain('Current plan'))
    expect(bff.callsTo('GET /api/billing/plans')).toHaveLength(reads)
  })

  it('sends one checkout request however often Subscribe is pressed, shows progress, then leaves for Stripe', async () => {
    const redirects = watchRedirects()
    const answer = deferred<Response>()
    const bff = plansBff('free', { 'POST /api/billing/checkout': () => answer.promise })
    renderPage(<PlansPage />, { path: '/billing/plans', bff })
    const [, pro, team] = await cards()
    const subscribe = within(pro!).getByRole('button', { name: 'Subscribe to Pro' })
    fireEvent.click(subscribe)
    fireEvent.click(subscribe)
    const busy = await within(pro!).findByRole('button', { name: 'Opening checkout…' })
    expect(busy.hasAttribute('disabled')).toBe(true)
    expect(busy.getAttribute('aria-busy')).toBe('true')
    expect(
      within(team!).getByRole('button', { name: 'Subscribe to Team' }).hasAttribute('disabled'),
    ).toBe(true)
    expect(screen.getByText('Opening secure checkout…')).toBeTruthy()
    fireEvent.click(within(team!).getByRole('button', { name: 'Subscribe to Team' }))
    expect(bff.callsTo('POST /api/billing/checkout')).toHaveLength(1)
    expect(bff.calls.find((c) => c.method === 'POST')?.body).toEqual({ plan: 'pro' })

    await act(async () => answer.resolve(Response.json({ url: checkoutUrl })))
    await waitFor(() => expect(redirects).toEqual([checkoutUrl]))
    // The browser is on its way: the button stays busy rather than inviting a second press.
    expect(within(pro!).getByRole('button', { name: 'Opening checkout…' })).toBeTruthy()
  })

  it('says in a sentence why checkout could not start, moves focus to it, and lets the person try again', async () => {
    const redirects = watchRedirects()
    const bff = plansBff('free', { 'POST /api/billing/checkout': apiError('upstream_timeout') })
    renderPage(<PlansPage />, { path: '/billing/plans', bff })
    const [, pro] = await cards()
    fireEvent.click(within(pro!).getByRole('button', { name: 'Subscribe to Pro' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(
      'Checkout could not be opened. The payment service took too long to answer. Try again in a minute.',
    )
    expect(alert.getAttribute('data-code')).toBe('upstream_timeout')
    expect(alert.textContent).toContain('Reference req-1')
    await waitFor(() => expect(document.activeElement).toBe(alert))
    const again = within(pro!).getByRole('button', { name: 'Subscribe to Pro' })
    expect(again.hasAttribute('disabled')).toBe(false)
    expect(redirects).toEqual([])
  })

  it('offers the billing portal to someone who turns out to be subscribed already', async () => {
    const redirects = watchRedirects()
    const bff = plansBff('free', { 'POST /api/billing/checkout': apiError('already_subscribed') })
    const { refreshes } = renderPage(<PlansPage />, { path: '/billing/plans', bff })
    const [, pro] = await cards()
    fireEvent.click(within(pro!).getByRole('button', { name: 'Subscribe to Pro' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toMatch(/already have a subscription/)
    expect(refreshes()).toBe(1)
    fireEvent.click(within(alert).getByRole('button', { name: 'Open the billing portal' }))
    await waitFor(() => expect(redirects).toEqual(['http://127.0.0.1:12111/portal/bps_1']))
  })

  it('says calmly that checkout was cancelled and the plan is unchanged', async () => {
    renderPage(<PlansPage />, {
      path: '/billing/plans?checkout=cancelled',
      bff: plansBff('free'),
    })
    const notice = await screen.findByText('Checkout was cancelled — you are still on Free.')
    expect(notice.getAttribute('role')).toBe('status')
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('sends paying customers to the portal to change plan, not to a second checkout', async () => {
    const redirects = watchRedirects()
    const bff = plansBff('pro')
    renderPage(<PlansPage />, { path: '/billing/plans', bff, session: signedIn('pro') })
    const [free, pro, team] = await cards()
    expect(pro?.textContent).toContain('Current plan')
    expect(within(free!).getByRole('button', { name: 'Switch to Free' })).toBeTruthy()
    fireEvent.click(within(team!).getByRole('button', { name: 'Switch to Team' }))
    await waitFor(() => expect(redirects).toEqual(['http://127.0.0.1:12111/portal/bps_1']))
    expect(bff.callsTo('POST /api/billing/checkout')).toEqual([])
  })

  it('shows signed-out visitors the plans with a way to sign in that comes back here', async () => {
    const { platform } = renderPage(<PlansPage />, {
      path: '/billing/plans',
      session: signedOut,
      bff: plansBff(null),
    })
    const [free, pro] = await cards()
    expect(free?.textContent).not.toContain('Current plan')
    expect(within(free!).queryByRole('link', { name: 'Sign in to subscribe' })).toBeNull()
    const signIn = within(pro!).getByRole('link', { name: 'Sign in to subscribe' })
    expect(signIn.getAttribute('href')).toBe('/auth/sign-in?next=%2Fbilling%2Fplans')
    fireEvent.click(signIn)
    expect(platform.navigations.at(-1)?.to).toBe('/auth/sign-in?next=%2Fbilling%2Fplans')
  })

  it('offers a signed-out visitor Free as "Start free", which goes to sign-up', async () => {
    const { platform } = renderPage(<PlansPage />, {
      path: '/billing/plans',
      session: signedOut,
      bff: plansBff(null),
    })
    const [free, pro, team] = await cards()
    const start = within(free!).getByRole('link', { name: 'Start free' })
    expect(start.getAttribute('href')).toBe('/auth/sign-up')
    expect(within(pro!).queryByRole('link', { name: 'Start free' })).toBeNull()
    expect(within(team!).getByRole('link', { name: 'Sign in to subscribe' })).toBeTruthy()
    fireEvent.click(start)
    expect(platform.navigations.at(-1)?.to).toBe('/auth/sign-up')
  })

  it('shows the past-due banner above the plans while a payment has failed', async () => {
    renderPage(<PlansPage />, {
      path: '/billing/plans',
      bff: plansBff('pro'),
      session: signedIn('pro', 'past_due'),
    })
    const banner = await screen.findByRole('region', { name: 'Your last payment failed' })
    expect(within(banner).getByRole('button', { name: 'Fix payment' })).toBeTruthy()
  })

  it('offers to try again when the plans cannot be loaded', async () => {
    let fail = true
    const bff = fakeBff({
      'GET /api/billing/plans': () =>
        fail ? apiError('upstream_unavailable') : Response.json(plansBody('free')),
    })
    renderPage(<PlansPage />, { path: '/billing/plans', bff })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('The plans could not be loaded.')
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await cards()).toHaveLength(3)
  })
})
