// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { planList } from '@tessera/contracts/plan-values'
import { RemotesContext, type RemotesRuntime } from '../remotes/remotes-context.tsx'
import { LandingPage } from './landing-page.tsx'

afterEach(cleanup)

function renderLanding() {
  const onNavigate = vi.fn()
  const releaseSlots = vi.fn()
  const load = vi.fn()
  const runtime = {
    loader: { load },
    loadOrder: { releaseSlots, slotsMayLoad: () => Promise.resolve() },
    platformFor: () => {
      throw new Error('the landing page mounts no plugin')
    },
    report: () => undefined,
  } as unknown as RemotesRuntime
  render(
    <RemotesContext value={runtime}>
      <LandingPage onNavigate={onNavigate} />
    </RemotesContext>,
  )
  return { onNavigate, releaseSlots, load }
}

describe('LandingPage', () => {
  it('says what Tessera is and offers Start free (sign-up) and Sign in', () => {
    const { onNavigate } = renderLanding()
    const hero = screen.getByRole('region', { name: 'Ask anything, and keep every answer' })
    expect(hero.textContent).toContain('Tessera is an AI assistant')
    const start = within(hero).getByRole('link', { name: 'Start free' })
    expect(start.getAttribute('href')).toBe('/auth/sign-up')
    expect(within(hero).getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe(
      '/auth/sign-in',
    )
    fireEvent.click(start)
    expect(onNavigate).toHaveBeenCalledWith('/auth/sign-up')
  })

  it('leaves a click with a modifier key to the browser (a new tab keeps the page)', () => {
    const { onNavigate } = renderLanding()
    const hero = screen.getByRole('region', { name: 'Ask anything, and keep every answer' })
    fireEvent.click(within(hero).getByRole('link', { name: 'Sign in' }), { ctrlKey: true })
    expect(onNavigate).not.toHaveBeenCalled()
  })

  it('shows every plan of the catalogue with its price, tokens and models', () => {
    renderLanding()
    const section = screen.getByRole('region', { name: 'Plans' })
    const cards = within(section).getAllByRole('listitem', { name: /^(Free|Pro|Team)$/ })
    expect(cards.map((card) => card.getAttribute('aria-labelledby'))).toHaveLength(planList.length)
    const [free, pro, team] = cards
    expect(free?.textContent).toContain('$0 forever')
    expect(free?.textContent).toContain('50,000 AI tokens a month')
    expect(free?.textContent).toContain('Model: GPT-4o mini')
    expect(pro?.textContent).toContain('$15 a month')
    expect(pro?.textContent).toContain('1,000,000 AI tokens a month')
    expect(team?.textContent).toContain('$15 per seat / month, from 2 seats')
    expect(team?.textContent).toContain('5,000,000 AI tokens a month per seat, pooled for the team')
    expect(team?.textContent).toContain('Models: GPT-4.1, GPT-4o, and GPT-4o mini')
    expect(within(free!).getByRole('link', { name: 'Start free' }).getAttribute('href')).toBe(
      '/auth/sign-up',
    )
    // A paid plan is chosen after signing up, on the plans page that can take the payment.
    expect(within(pro!).getByRole('link', { name: 'Choose Pro' }).getAttribute('href')).toBe(
      '/auth/sign-up?next=%2Fbilling%2Fplans',
    )
  })

  it('claims no feature the product lacks: no teams, no card for Free', () => {
    renderLanding()
    const text = document.body.textContent ?? ''
    expect(text).toContain('The Free plan needs no card.')
    expect(text).toContain("Free and Pro are for one person's account; Team is billed per seat.")
    expect(text).not.toMatch(/Priority answers|invite|workspace|team members/i)
  })

  it('loads no remote for itself and lets the header slots load once its text is painted', async () => {
    const { releaseSlots, load } = renderLanding()
    // jsdom paints nothing it could observe: the page counts as painted at once.
    await waitFor(() => expect(releaseSlots).toHaveBeenCalled())
    expect(load).not.toHaveBeenCalled()
  })
})
