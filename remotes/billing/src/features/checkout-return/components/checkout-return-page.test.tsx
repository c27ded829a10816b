import { act, cleanup, screen, waitFor, within, fireEvent } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CheckoutStatus } from '@tessera/contracts'
import {
  apiError,
  entitlementsFor,
  fakeBff,
  renderPage,
  signedIn,
  signedOut,
} from '../../../testing/render-page.tsx'
import type { ConfirmationTiming } from '../use-checkout-confirmation.ts'
import { CheckoutReturnPage } from './checkout-return-page.tsx'

afterEach(() => {
  cleanup()
  vi.useRealTimers()
  vi.restoreAllMocks()
})

// Long pauses, so only news (or the test) triggers a check; a short time limit where a test needs it.
const patient: ConfirmationTiming = {
  timeoutMs: 60_000,
  fastPollMs: 60_000,
  slowPollMs: 60_000,
  fastForMs: 0,
}
const impatient: ConfirmationTiming = { ...patient, timeoutMs: 50 }
const polling: ConfirmationTiming = {
  timeoutMs: 60_000,
  fastPollMs: 20,
  slowPollMs: 20,
  fastForMs: 60_000,
}

const statusOf = (
  overrides: Partial<CheckoutStatus> & Pick<CheckoutStatus, 'status' | 'confirmed'>,
): CheckoutStatus => ({
  plan: overrides.confirmed ? 'pro' : 'free',
  entitlements: entitlementsFor(overrides.confirmed ? 'pro' : 'free'),
  ...overrides,
})

/** A BFF whose checkout status the test moves along. */
function checkoutBff(initial: CheckoutStatus | ReturnType<typeof apiError>) {
  let answer = initial
  const bff = fakeBff({
    'GET /api/billing/checkout/cs_test_1': () =>
      answer instanceof Error ? answer : Response.json(answer),
  })
  return { bff, set: (next: typeof answer) => (answer = next) }
}

const path = '/billing/return?session_id=cs_test_1'

/** Each step as a screen reader reads it (the drawn markers are hidden from it). */
const stepStates = () =>
  within(screen.getByRole('list', { name: 'Subscription progress' }))
    .getAllByRole('listitem')
    .map((item) => {
      const spoken = item.cloneNode(true) as HTMLElement
      for (const hidden of spoken.querySelectorAll('[aria-hidden="true"]')) hidden.remove()
      return spoken.textContent
    })

describe('the checkout return page', () => {
  it('never claims the plan from the redirect alone: a paid checkout waits for confirmation', async () => {
    const { bff } = checkoutBff(statusOf({ status: 'complete', confirmed: false }))
    renderPage(<CheckoutReturnPage timing={patient} />, { path, bff })
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(
      'Confirming your subscription',
    )
    await screen.findByText('Payment received. Confirming your subscription…')
    expect(stepStates()).toEqual([
      'Payment received, done',
      'Confirming your subscription, in progress',
      'Done, not started',
    ])
    expect(screen.queryByText(/You're on/)).toBeNull()
    expect(
      screen
        .getByText('Payment received. Confirming your subscription…')
        .closest('[role="status"]'),
    ).not.toBeNull()
  })

  it('checks again as soon as a live event arrives, then says the plan and links to the assistant', async () => {
    const { bff, set } = checkoutBff(statusOf({ status: 'complete', confirmed: false }))
    const { platform, refreshes } = renderPage(<CheckoutReturnPage timing={patient} />, {
      path,
      bff,
      session: signedIn('free'),
      refreshTo: signedIn('pro'),
    })
    await screen.findByText('Payment received. Confirming your subscription…')
    set(statusOf({ status: 'complete', confirmed: true }))
    act(() =>
      platform.emit({ type: 'entitlements', data: { entitlements: entitlementsFor('pro') } }),
    )
    const heading = await screen.findByRole('heading', { level: 1, name: "You're on Pro" })
    await waitFor(() => expect(document.activeElement).toBe(heading))
    expect(stepStates()).toEqual([
      'Payment received, done',
      'Confirming your subscription, done',
      'Done, done',
    ])
    const assistant = screen.getByRole('link', { name: 'Open the assistant' })
    expect(assistant.getAttribute('href')).toBe('/assistant')
    // The header learns the new plan even if this tab missed the entitlements event.
    expect(refreshes()).toBe(1)
  })

  it('keeps checking on a schedule without any live event, and stops once confirmed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { bff, set } = checkoutBff(statusOf({ status: 'open', confirmed: false }))
    renderPage(<CheckoutReturnPage timing={polling} />, { path, bff })
    await vi.waitFor(() => screen.getByText('Waiting for Stripe to report your payment…'))
    expect(stepStates()[0]).toBe('Payment received, in progress')
    set(statusOf({ status: 'complete', confirmed: false }))
    await vi.waitFor(() => screen.getByText('Payment received. Confirming your subscription…'))
    set(statusOf({ status: 'complete', confirmed: true }))
    await vi.waitFor(() => screen.getByRole('heading', { level: 1, name: "You're on Pro" }))
    const checks = bff.callsTo('GET /api/billing/checkout/cs_test_1').length
    await act(() => vi.advanceTimersByTimeAsync(10_000))
    expect(bff.callsTo('GET /api/billing/checkout/cs_test_1')).toHaveLength(checks)
  })

  it('says what to do when confirmation takes too long, and can check again on request', async () => {
    const { bff, set } = checkoutBff(statusOf({ status: 'complete', confirmed: false }))
    renderPage(<CheckoutReturnPage timing={impatient} />, { path, bff })
    const slow = await screen.findByRole('heading', { name: 'This is taking longer than usual' })
    const card = slow.closest('div')!
    expect(card.textContent).toMatch(/Stripe has your payment/)
    expect(card.textContent).toContain('cs_test_1')
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1 })),
    )
    set(statusOf({ status: 'complete', confirmed: true }))
    fireEvent.click(within(card).getByRole('button', { name: 'Check again now' }))
    await screen.findByRole('heading', { level: 1, name: "You're on Pro" })
  })

  it('tells someone who did not pay that they were not charged and how to start again', async () => {
    const { bff } = checkoutBff(statusOf({ status: 'open', confirmed: false }))
    renderPage(<CheckoutReturnPage timing={impatient} />, { path, bff })
    await screen.findByRole('heading', { name: 'This is taking longer than usual' })
    expect(screen.getByText(/you have not been charged/)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'go back to the plans' }).getAttribute('href')).toBe(
      '/billing/plans',
    )
  })

  it('says an expired checkout charged nothing and the plan is unchanged', async () => {
    const { bff } = checkoutBff(statusOf({ status: 'expired', confirmed: false }))
    renderPage(<CheckoutReturnPage timing={patient} />, { path, bff })
    await screen.findByRole('heading', { level: 1, name: 'This checkout expired' })
    expect(screen.getByText(/not been charged and are still on Free/)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Choose a plan' })).toBeTruthy()
  })

  it('says so when the checkout is not this account’s or does not exist', async () => {
    for (const code of ['not_found', 'validation_failed'] as const) {
      const { bff } = checkoutBff(apiError(code))
      const { view } = renderPage(<CheckoutReturnPage timing={patient} />, { path, bff })
      await screen.findByRole('heading', { level: 1, name: 'We could not find this checkout' })
      view.unmount()
    }
  })

  it('keeps checking through a passing failure and shows it only once it is late', async () => {
    const { bff, set } = checkoutBff(apiError('upstream_unavailable'))
    renderPage(<CheckoutReturnPage timing={{ ...polling, timeoutMs: 200 }} />, { path, bff })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('We could not check your payment just now.')
    set(statusOf({ status: 'complete', confirmed: true }))
    await screen.findByRole('heading', { level: 1, name: "You're on Pro" })
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('explains the page when the address names no checkout', () => {
    const bff = fakeBff({})
    renderPage(<CheckoutReturnPage timing={patient} />, { path: '/billing/return', bff })
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Nothing to confirm')
    expect(bff.calls).toEqual([])
  })

  it('asks a signed-out visitor to sign in and come back to this very address', () => {
    renderPage(<CheckoutReturnPage timing={patient} />, { path, session: signedOut })
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe(
      `/auth/sign-in?next=${encodeURIComponent(path)}`,
    )
  })

  it('stops checking once the page is gone', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { bff } = checkoutBff(statusOf({ status: 'complete', confirmed: false }))
    const { platform, view } = renderPage(<CheckoutReturnPage timing={polling} />, { path, bff })
    await vi.waitFor(() => screen.getByText('Payment received. Confirming your subscription…'))
    view.unmount()
    const checks = bff.calls.length
    await act(() => vi.advanceTimersByTimeAsync(10_000))
    expect(bff.calls).toHaveLength(checks)
    expect(platform.listenerCount()).toBe(0)
  })
})
