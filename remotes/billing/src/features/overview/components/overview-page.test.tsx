import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SubscriptionResponse } from '@tessera/contracts'
import {
  apiError,
  entitlementsFor,
  fakeBff,
  renderPage,
  signedIn,
  subscriptionBody,
  watchRedirects,
} from '../../../testing/render-page.tsx'
import { formatDate } from '@tessera/plugin-react/format'
import { OverviewPage } from './overview-page.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const portalUrl = 'http://127.0.0.1:12111/portal/bps_1'
const periodEnd = '2026-12-22T12:00:00.000Z'

function overviewBff(body: () => SubscriptionResponse, extra: Parameters<typeof fakeBff>[0] = {}) {
  return fakeBff({
    'GET /api/billing/subscription': () => Response.json(body()),
    'POST /api/billing/portal': Response.json({ url: portalUrl }),
    ...extra,
  })
}

const summary = async () => screen.findByRole('region', { name: 'Your plan' })

describe('the billing page', () => {
  it('shows a free user their plan and the way to the plans, and no portal', async () => {
    renderPage(<OverviewPage />, { bff: overviewBff(() => subscriptionBody('free')) })
    const plan = await summary()
    expect(plan.textContent).toContain('Free')
    expect(plan.textContent).toContain('You are on the free plan.')
    expect(within(plan).getByRole('link', { name: 'See plans' }).getAttribute('href')).toBe(
      '/billing/plans',
    )
    expect(within(plan).queryByRole('button', { name: 'Manage billing' })).toBeNull()
  })

  it('shows a subscriber their plan, its status and the next renewal date', async () => {
    renderPage(<OverviewPage />, {
      session: signedIn('pro'),
      bff: overviewBff(() => subscriptionBody('pro', { currentPeriodEnd: periodEnd })),
    })
    const plan = await summary()
    expect(plan.textContent).toContain('Pro')
    expect(plan.textContent).toContain('Active')
    expect(plan.textContent).toContain(`Renews on ${formatDate(periodEnd)}.`)
    expect(plan.textContent).toContain('1,000,000 AI tokens a month')
  })

  it('shows a cancellation as it arrives, without a reload: cancels on the date, still Pro', async () => {
    const bff = overviewBff(() => subscriptionBody('pro', { currentPeriodEnd: periodEnd }))
    const { platform } = renderPage(<OverviewPage />, { session: signedIn('pro'), bff })
    await screen.findByText(`Renews on ${formatDate(periodEnd)}.`)
    act(() =>
      platform.emit({
        type: 'billing.subscription',
        data: subscriptionBody('pro', { currentPeriodEnd: periodEnd, cancelAt: periodEnd }),
      }),
    )
    const plan = await summary()
    await waitFor(() =>
      expect(plan.textContent).toContain(
        `Cancels on ${formatDate(periodEnd)}. You keep Pro until then.`,
      ),
    )
    expect(plan.textContent).toContain('Cancelling')
    expect(plan.textContent).not.toContain('Renews on')
    expect(plan.querySelector('[aria-live="polite"]')?.textContent).toContain('Cancels on')
  })

  it('reads the subscription again when the entitlements change', async () => {
    let body = subscriptionBody('free')
    const bff = overviewBff(() => body)
    const { platform } = renderPage(<OverviewPage />, { bff })
    await screen.findByText('You are on the free plan.', { exact: false })
    body = subscriptionBody('team', { currentPeriodEnd: periodEnd })
    act(() =>
      platform.emit({ type: 'entitlements', data: { entitlements: entitlementsFor('team') } }),
    )
    await screen.findByText(`Renews on ${formatDate(periodEnd)}.`)
    expect((await summary()).textContent).toContain('Team')
  })

  it('ignores an event with a shape it does not know, keeping what it shows', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const bff = overviewBff(() => subscriptionBody('pro', { currentPeriodEnd: periodEnd }))
    const { platform } = renderPage(<OverviewPage />, { session: signedIn('pro'), bff })
    await screen.findByText(`Renews on ${formatDate(periodEnd)}.`)
    act(() => platform.emit({ type: 'billing.subscription', data: { plan: 'nonsense' } }))
    expect(warn).toHaveBeenCalledOnce()
    expect(screen.getByText(`Renews on ${formatDate(periodEnd)}.`)).toBeTruthy()
  })

  it('reads the subscription again when the live stream comes back after a gap', async () => {
    const bff = overviewBff(() => subscriptionBody('free'))
    const { platform } = renderPage(<OverviewPage />, { bff })
    await summary()
    const reads = bff.callsTo('GET /api/billing/subscription').length
    act(() => platform.setEventStatus('reconnecting'))
    act(() => platform.setEventStatus('open'))
    await waitFor(() =>
      expect(bff.callsTo('GET /api/billing/subscription')).toHaveLength(reads + 1),
    )
  })

  it('opens the billing portal from Manage billing, once, showing it is busy', async () => {
    const redirects = watchRedirects()
    const bff = overviewBff(() => subscriptionBody('pro'))
    renderPage(<OverviewPage />, { session: signedIn('pro'), bff })
    const manage = within(await summary()).getByRole('button', { name: 'Manage billing' })
    fireEvent.click(manage)
    fireEvent.click(manage)
    await waitFor(() => expect(redirects).toEqual([portalUrl]))
    expect(bff.callsTo('POST /api/billing/portal')).toHaveLength(1)
    const busy = within(await summary()).getByRole('button', {
      name: 'Opening the billing portal…',
    })
    expect(busy.hasAttribute('disabled')).toBe(true)
  })

  it('says why the portal did not open, with focus on the sentence', async () => {
    const bff = overviewBff(() => subscriptionBody('pro'), {
      'POST /api/billing/portal': apiError('upstream_unavailable'),
    })
    renderPage(<OverviewPage />, { session: signedIn('pro'), bff })
    fireEvent.click(within(await summary()).getByRole('button', { name: 'Manage billing' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(
      'The billing portal could not be opened. The payment service is not answering right now.',
    )
    await waitFor(() => expect(document.activeElement).toBe(alert))
  })

  it('shows the past-due banner whose button opens the portal', async () => {
    const redirects = watchRedirects()
    renderPage(<OverviewPage />, {
      session: signedIn('pro', 'past_due'),
      bff: overviewBff(() => subscriptionBody('pro', { status: 'past_due' })),
    })
    const banner = await screen.findByRole('region', { name: 'Your last payment failed' })
    expect(banner.textContent).toContain('You still have Pro while Stripe retries the payment.')
    expect((await summary()).textContent).toContain('Payment failed')
    fireEvent.click(within(banner).getByRole('button', { name: 'Fix payment' }))
    await waitFor(() => expect(redirects).toEqual([portalUrl]))
  })

  it('offers to try again when the subscription cannot be loaded', async () => {
    let fail = true
    const bff = fakeBff({
      'GET /api/billing/subscription': () =>
        fail ? apiError('internal') : Response.json(subscriptionBody('free')),
    })
    renderPage(<OverviewPage />, { bff })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Your subscription could not be loaded.')
    expect(alert.textContent).toContain('req-1')
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }))
    await summary()
  })
})
