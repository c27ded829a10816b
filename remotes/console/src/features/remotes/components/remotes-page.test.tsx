// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react'
import { apiError, fakeBff, renderConsole } from '../../../testing/render-console.tsx'
import { billingRemote, channel, remotesBody } from '../../../testing/fixtures.ts'
import { RemotesPage } from './remotes-page.tsx'

afterEach(() => {
  cleanup()
  vi.useRealTimers()
})

describe('RemotesPage', () => {
  it('shows each remote’s channels, size, last publish and traffic per version', async () => {
    const bff = fakeBff({ 'GET /api/console/remotes': Response.json(remotesBody()) })
    renderConsole(<RemotesPage />, { bff })
    const card = await screen.findByRole('article', { name: 'billing' })
    expect(within(card).getByText('Canary at 20 %')).toBeTruthy()
    expect(within(card).getByText('1.3.0 at 20 %')).toBeTruthy()
    expect(within(card).getByText('142.3 KB')).toBeTruthy()
    expect(within(card).getByText('billing CI')).toBeTruthy()
    const region = within(card).getByRole('region', { name: 'Traffic of billing by version' })
    const rows = within(region).getAllByRole('row')
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringContaining('Clients served'),
      expect.stringMatching(/1\.3\.0Canary, 20 %32.*above the threshold/),
      expect.stringMatching(/1\.0\.0Stable120/),
    ])
    expect(
      within(region).getByRole('img', {
        name: /4 errors for billing 1\.3\.0 in the last 4 minutes, at most 3 in one minute; per minute, oldest first: 0, 0, 1, and 3/,
      }),
    ).toBeTruthy()
    expect(
      within(region).getByRole('img', {
        name: 'No errors for billing 1.0.0 in the last 4 minutes.',
      }),
    ).toBeTruthy()
    expect(
      within(card)
        .getByRole('link', { name: /Versions and actions/ })
        .getAttribute('href'),
    ).toBe('/console/remotes/billing')
    expect(
      screen.getByText(/more than 50% of its clients report errors, judged from 3 clients on/),
    ).toBeTruthy()
  })

  it('reads again on every registry change', async () => {
    let answer = remotesBody()
    const bff = fakeBff({ 'GET /api/console/remotes': () => Response.json(answer) })
    const { platform } = renderConsole(<RemotesPage />, { bff })
    await screen.findByText('1.3.0 at 20 %')
    answer = remotesBody([
      billingRemote({ canary: channel('canary', null, { revision: 8 }), traffic: [] }),
    ])
    act(() => platform.emit({ type: 'registry.changed', data: { remote: 'billing' } }))
    expect(
      await screen.findByText('No client was served a canary of billing in this window.'),
    ).toBeTruthy()
    expect(screen.queryByText('1.3.0 at 20 %')).toBeNull()
  })

  it('polls every 5 seconds while the page is visible', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const bff = fakeBff({ 'GET /api/console/remotes': () => Response.json(remotesBody()) })
    renderConsole(<RemotesPage />, { bff })
    await screen.findByRole('article', { name: 'billing' })
    const before = bff.callsTo('GET /api/console/remotes').length
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5_000)
    })
    expect(bff.callsTo('GET /api/console/remotes').length).toBe(before + 1)
  })

  it('stacks the traffic as a list on a phone instead of a table that would scroll', async () => {
    vi.spyOn(window, 'matchMedia').mockImplementation(
      (query: string) =>
        ({
          matches: query === '(max-width: 560px)',
          media: query,
          addEventListener: () => undefined,
          removeEventListener: () => undefined,
        }) as unknown as MediaQueryList,
    )
    const bff = fakeBff({ 'GET /api/console/remotes': Response.json(remotesBody()) })
    renderConsole(<RemotesPage />, { bff })
    const list = await screen.findByRole('list', { name: 'Traffic of billing by version' })
    expect(screen.queryByRole('table')).toBeNull()
    const [canary] = within(list).getAllByRole('listitem')
    expect(canary?.textContent).toMatch(
      /^1\.3\.0 · Canary, 20 %Clients served3With errors2Error rate66\.7%/,
    )
    expect(
      within(canary as HTMLElement).getByRole('img', { name: /4 errors for billing 1\.3\.0/ }),
    ).toBeTruthy()
    vi.restoreAllMocks()
  })

  it('says what to publish when no remote is registered', async () => {
    const bff = fakeBff({ 'GET /api/console/remotes': Response.json(remotesBody([])) })
    renderConsole(<RemotesPage />, { bff })
    expect(await screen.findByRole('heading', { name: 'No remote is registered yet' })).toBeTruthy()
  })

  it('explains a refusal with a next step and the request id, and tries again', async () => {
    let fail = true
    const bff = fakeBff({
      'GET /api/console/remotes': () =>
        fail ? apiError('forbidden') : Response.json(remotesBody()),
    })
    renderConsole(<RemotesPage />, { bff })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(
      'The remotes could not be loaded. Only operators can use the console.',
    )
    expect(within(alert).getByText('req-1')).toBeTruthy()
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('article', { name: 'billing' })).toBeTruthy()
    expect(screen.queryByRole('alert')).toBeNull()
  })
})
