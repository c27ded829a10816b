// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { createFakePlatform } from '@tessera/remote-build/testing'
import { PlatformProvider } from './platform.tsx'
import { TabNav } from './tab-nav.tsx'

afterEach(cleanup)

const tabs = [
  { to: '/billing', route: '/', label: 'Overview' },
  { to: '/billing/plans', route: '/plans', label: 'Plans' },
]

describe('TabNav', () => {
  it('marks the tab of the current route as the current page, in a labelled nav', () => {
    const platform = createFakePlatform({
      remote: { name: 'billing', version: '1.0.0' },
      route: '/plans',
    })
    render(
      <PlatformProvider platform={platform}>
        <TabNav tabs={tabs} label="Billing" className="billing-nav" />
      </PlatformProvider>,
    )
    const nav = screen.getByRole('navigation', { name: 'Billing' })
    expect(nav.className).toBe('billing-nav')
    expect(screen.getByRole('link', { name: 'Plans' }).getAttribute('aria-current')).toBe('page')
    expect(screen.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBeNull()
    expect(screen.getByRole('link', { name: 'Overview' }).getAttribute('href')).toBe('/billing')
  })
})
