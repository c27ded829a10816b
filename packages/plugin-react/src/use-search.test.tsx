// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { createFakePlatform } from '@tessera/remote-build/testing'
import { useSearchParams, withAnnouncedNavigation } from './use-search.ts'

function ShowNext() {
  return <p>next={useSearchParams().get('next') ?? 'none'}</p>
}

afterEach(() => {
  cleanup()
  window.history.replaceState(null, '', '/')
})

describe('useSearchParams', () => {
  it('reads the query of the current address', () => {
    window.history.replaceState(null, '', '/auth/sign-in?next=%2Fbilling')
    render(<ShowNext />)
    expect(screen.getByText('next=/billing')).toBeTruthy()
  })

  it('sees a query-only change made through an announced navigate', () => {
    window.history.replaceState(null, '', '/auth/sign-in?next=%2Fbilling')
    const fake = createFakePlatform({ remote: { name: 'auth', version: '1.0.0' } })
    fake.navigate = (to) => window.history.replaceState(null, '', to)
    const platform = withAnnouncedNavigation(fake)
    render(<ShowNext />)
    act(() => platform.navigate('/auth/sign-in'))
    expect(screen.getByText('next=none')).toBeTruthy()
  })

  it('sees the browser going Back to another query', () => {
    window.history.replaceState(null, '', '/billing/plans')
    render(<ShowNext />)
    act(() => {
      window.history.replaceState(null, '', '/billing/plans?next=%2Fassistant')
      window.dispatchEvent(new PopStateEvent('popstate'))
    })
    expect(screen.getByText('next=/assistant')).toBeTruthy()
  })
})
