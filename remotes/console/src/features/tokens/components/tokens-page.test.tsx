// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { apiError, fakeBff, renderConsole } from '../../../testing/render-console.tsx'
import { remotesBody, token } from '../../../testing/fixtures.ts'
import { TokensPage } from './tokens-page.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

describe('TokensPage', () => {
  it('issues a token and shows it once, with a copy button and a warning', async () => {
    let tokens = [token('t1', { lastUsedAt: '2026-11-26T08:00:00.000Z' })]
    const bff = fakeBff({
      'GET /api/console/tokens': () => Response.json({ tokens }),
      'GET /api/console/remotes': () => Response.json(remotesBody()),
      'POST /api/console/tokens': () => {
        const info = token('t2', { label: 'release bot' })
        tokens = [info, ...tokens]
        return Response.json({ token: 'tsr_secret_value', info }, { status: 201 })
      },
    })
    const writeText = vi.fn(() => Promise.resolve())
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    renderConsole(<TokensPage />, { bff, path: '/console/tokens' })
    const list = await screen.findByRole('region', { name: 'Deploy tokens' })
    expect(within(list).getByRole('row', { name: /billing CI/ }).textContent).not.toContain('never')
    fireEvent.change(screen.getByLabelText('Label'), { target: { value: 'release bot' } })
    fireEvent.click(screen.getByRole('button', { name: 'Issue token' }))
    const issued = await screen.findByRole('region', { name: 'Token for billing (release bot)' })
    expect(within(issued).getByText('tsr_secret_value')).toBeTruthy()
    expect(within(issued).getByText('Copy it now: it will not be shown again.')).toBeTruthy()
    expect(bff.callsTo('POST /api/console/tokens')[0]?.body).toEqual({
      remote: 'billing',
      label: 'release bot',
    })
    fireEvent.click(within(issued).getByRole('button', { name: 'Copy token' }))
    expect(await within(issued).findByText('Copied.')).toBeTruthy()
    expect(writeText).toHaveBeenCalledWith('tsr_secret_value')
    await waitFor(() => expect(within(list).getByRole('row', { name: /release bot/ })).toBeTruthy())
    fireEvent.click(within(issued).getByRole('button', { name: 'I have stored it' }))
    expect(screen.queryByText('tsr_secret_value')).toBeNull()
  })

  it('revokes a token only after confirming', async () => {
    let revoked = false
    const bff = fakeBff({
      'GET /api/console/tokens': () =>
        Response.json({
          tokens: [token('t1', revoked ? { revokedAt: '2026-11-26T09:10:00.000Z' } : {})],
        }),
      'GET /api/console/remotes': () => Response.json(remotesBody()),
      'POST /api/console/tokens/t1/revoke': () => {
        revoked = true
        return Response.json({ token: token('t1', { revokedAt: '2026-11-26T09:10:00.000Z' }) })
      },
    })
    const { platform } = renderConsole(<TokensPage />, { bff, path: '/console/tokens' })
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke billing CI' }))
    const dialog = screen.getByRole('dialog', { name: 'Revoke “billing CI”?' })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke token' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.callsTo('POST /api/console/tokens/t1/revoke')).toHaveLength(1)
    expect(await screen.findByText(/^Revoked /)).toBeTruthy()
    expect(platform.notices).toEqual([{ kind: 'success', message: 'Revoked “billing CI”.' }])
  })

  it('shows the field the BFF refused', async () => {
    const bff = fakeBff({
      'GET /api/console/tokens': () => Response.json({ tokens: [] }),
      'GET /api/console/remotes': () => Response.json(remotesBody()),
      'POST /api/console/tokens': apiError('validation_failed', {
        issues: [{ path: 'label', message: 'must be plain text' }],
      }),
    })
    renderConsole(<TokensPage />, { bff, path: '/console/tokens' })
    expect(
      await screen.findByText(
        'No token has been issued yet. Issue one above for each remote’s CI.',
      ),
    ).toBeTruthy()
    fireEvent.change(screen.getByLabelText('Label'), { target: { value: 'x' } })
    fireEvent.click(screen.getByRole('button', { name: 'Issue token' }))
    expect(await screen.findByText('must be plain text')).toBeTruthy()
    expect(screen.getByRole('alert').textContent).toContain('No token was issued.')
  })
})
