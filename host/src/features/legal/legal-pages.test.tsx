// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PrivacyPage } from './privacy-page.tsx'
import { SiteFooter } from './site-footer.tsx'
import { TermsPage } from './terms-page.tsx'

afterEach(cleanup)

describe('the privacy page', () => {
  it('names what is stored, and that card numbers stay with Stripe', () => {
    render(<PrivacyPage onNavigate={() => undefined} />)
    expect(screen.getByRole('heading', { level: 1, name: 'Privacy' })).toBeTruthy()
    expect(screen.getAllByRole('term').map((term) => term.textContent)).toEqual([
      'Your account',
      'Sessions',
      'Conversations',
      'Usage',
      'Subscription',
    ])
    const text = document.body.textContent ?? ''
    expect(text).toContain('Your email address and your display name')
    expect(text).toContain('the network address it signed in from')
    expect(text).toContain('they never reach Tessera, and Stripe holds them')
    expect(text).toContain('The AI model provider receives each message you send')
  })

  it('says how to have an account deleted as the product allows today: by asking', () => {
    render(<PrivacyPage onNavigate={() => undefined} />)
    expect(document.body.textContent).toContain(
      'You cannot delete your whole account yourself yet. To have it deleted, ask the operator',
    )
  })
})

describe('the terms page', () => {
  it('links to the pages it names, in the app', () => {
    const onNavigate = vi.fn()
    render(<TermsPage onNavigate={onNavigate} />)
    expect(screen.getByRole('heading', { level: 1, name: 'Terms of use' })).toBeTruthy()
    fireEvent.click(screen.getByRole('link', { name: 'privacy page' }))
    expect(onNavigate).toHaveBeenCalledWith('/privacy')
  })
})

describe('SiteFooter', () => {
  it('links to terms and privacy and marks the page the visitor is on', () => {
    const onNavigate = vi.fn()
    render(<SiteFooter pathname="/privacy" onNavigate={onNavigate} />)
    const nav = within(screen.getByRole('contentinfo')).getByRole('navigation', { name: 'Legal' })
    const terms = within(nav).getByRole('link', { name: 'Terms' })
    expect(terms.getAttribute('href')).toBe('/terms')
    expect(terms.getAttribute('aria-current')).toBeNull()
    expect(within(nav).getByRole('link', { name: 'Privacy' }).getAttribute('aria-current')).toBe(
      'page',
    )
    fireEvent.click(terms)
    expect(onNavigate).toHaveBeenCalledWith('/terms')
  })
})
