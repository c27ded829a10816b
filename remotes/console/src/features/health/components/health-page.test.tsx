// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, screen, within } from '@testing-library/react'
import { fakeBff, renderConsole } from '../../../testing/render-console.tsx'
import { healthBody } from '../../../testing/fixtures.ts'
import { HealthPage } from './health-page.tsx'

afterEach(cleanup)

describe('HealthPage', () => {
  it('shows each replica and dependency, with a sentence for what is not ok', async () => {
    const bff = fakeBff({ 'GET /api/console/health': Response.json(healthBody()) })
    renderConsole(<HealthPage />, { bff, path: '/console/health' })
    const replicas = await screen.findByRole('region', { name: 'BFF replicas: 1 of 2 up' })
    const items = within(replicas).getAllByRole('listitem')
    expect(items[0]?.textContent).toContain('bff-1This oneUp')
    expect(items[1]?.textContent).toContain('Down')
    expect(items[1]?.textContent).toContain('it has stopped or cannot reach the database')
    const checks = screen.getByRole('region', {
      name: 'Dependencies, as this replica reaches them',
    })
    expect(within(checks).getByText('Answered in 180 ms.')).toBeTruthy()
    expect(
      within(checks).getByText(
        'Stripe did not answer within 2 s. Check STRIPE_API_URL and the network.',
      ),
    ).toBeTruthy()
    expect(screen.getByText('2 things need attention; each says why below.')).toBeTruthy()
  })
})
