// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, render, screen } from '@testing-library/react'
import { Sparkline } from './sparkline.tsx'

afterEach(cleanup)

describe('Sparkline', () => {
  it('draws one point per minute, scaled to the peak, with a text alternative', () => {
    render(<Sparkline values={[0, 2, 4]} subject="billing 1.3.0" />)
    const image = screen.getByRole('img')
    expect(image.getAttribute('aria-label')).toBe(
      '6 errors for billing 1.3.0 in the last 3 minutes, at most 4 in one minute; per minute, oldest first: 0, 2, and 4.',
    )
    expect(image.querySelector('polyline')?.getAttribute('points')).toBe(
      '0.0,26.0 60.0,14.0 120.0,2.0',
    )
  })

  it('says so when there is nothing to draw', () => {
    render(<Sparkline values={[]} subject="auth 1.0.0" />)
    expect(screen.getByRole('img', { name: 'No error counts for auth 1.0.0 yet.' })).toBeTruthy()
  })
})
