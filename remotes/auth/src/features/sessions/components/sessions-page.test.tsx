import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ada, fakeBff, renderPage } from '../../../testing/render-page.tsx'
import { SessionsPage } from './sessions-page.tsx'

afterEach(cleanup)

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()

function sessionsBff(extra: Parameters<typeof fakeBff>[0] = {}) {
  let sessions = [
    {
      id: 'a',
      device: 'Firefox on Linux',
      browser: 'Firefox 140',
      os: 'Linux',
      signInMethod: 'magic_link',
      lastSeenAddress: '203.0.113.9',
      createdAt: minutesAgo(600),
      lastSeenAt: minutesAgo(5),
      current: false,
    },
    {
      id: 'b',
      device: 'Chrome on macOS',
      createdAt: minutesAgo(60),
      lastSeenAt: minutesAgo(0),
      current: true,
    },
  ]
  return fakeBff({
    'GET /api/me/sessions': () => Response.json({ sessions }),
    'DELETE /api/me/sessions/a': () => {
      sessions = sessions.filter((session) => session.id !== 'a')
      return Response.json({ status: 'revoked', current: false })
    },
    'DELETE /api/me/sessions/b': Response.json({ status: 'revoked', current: true }),
    ...extra,
  })
}

describe('the sessions page', () => {
  it('lists devices with the current one first and marked', async () => {
    renderPage(<SessionsPage />, { path: '/auth/sessions', session: ada, bff: sessionsBff() })
    const list = await screen.findByRole('list', { name: 'Signed-in devices' })
    const items = within(list).getAllByRole('listitem')
    expect(items[0]?.textContent).toContain('Chrome on macOS')
    expect(items[0]?.textContent).toContain('This device')
    // Enough to tell rows apart: browser and version, system, how it signed in, from where.
    expect(items[1]?.textContent).toContain('Firefox 140 on Linux')
    expect(items[1]?.textContent).toContain(
      'Signed in with an email link · last seen from 203.0.113.9',
    )
    // A row from a BFF that sends only the label still reads.
    expect(items[0]?.textContent).toContain('Chrome on macOS')
    expect(items[1]?.textContent).toContain('5 minutes ago')
  })

  it('asks before signing a device out, and Cancel returns focus', async () => {
    const bff = sessionsBff()
    renderPage(<SessionsPage />, { path: '/auth/sessions', session: ada, bff })
    const list = await screen.findByRole('list', { name: 'Signed-in devices' })
    const firefox = within(list).getAllByRole('listitem')[1]
    if (!firefox) throw new Error('no second session')
    const ask = within(firefox).getByRole('button', { name: 'Sign out' })
    fireEvent.click(ask)
    const confirm = within(firefox).getByRole('button', { name: 'Yes, sign out' })
    await waitFor(() => expect(document.activeElement).toBe(confirm))
    expect(
      within(firefox).getByRole('group', { name: 'Sign out Firefox 140 on Linux?' }),
    ).toBeTruthy()
    fireEvent.keyDown(confirm, { key: 'Escape' })
    const again = await within(firefox).findByRole('button', { name: 'Sign out' })
    await waitFor(() => expect(document.activeElement).toBe(again))
    expect(bff.calls.filter((call) => call.method === 'DELETE')).toEqual([])
  })

  it('signs another device out and shows the list without it', async () => {
    const bff = sessionsBff()
    const { platform } = renderPage(<SessionsPage />, { path: '/auth/sessions', session: ada, bff })
    const list = await screen.findByRole('list', { name: 'Signed-in devices' })
    const firefox = within(list).getAllByRole('listitem')[1]
    if (!firefox) throw new Error('no second session')
    fireEvent.click(within(firefox).getByRole('button', { name: 'Sign out' }))
    fireEvent.click(within(firefox).getByRole('button', { name: 'Yes, sign out' }))
    await waitFor(() => expect(screen.queryByText('Firefox 140 on Linux')).toBeNull())
    expect(bff.callsTo('DELETE /api/me/sessions/a')).toHaveLength(1)
    expect(platform.notices.at(-1)?.message).toBe('Firefox 140 on Linux is signed out.')
  })

  it('treats signing out the current device as signing out', async () => {
    const bff = sessionsBff()
    const { platform, refreshes } = renderPage(<SessionsPage />, {
      path: '/auth/sessions',
      session: ada,
      bff,
      refreshTo: { status: 'signed-out', user: null },
    })
    const list = await screen.findByRole('list', { name: 'Signed-in devices' })
    const current = within(list).getAllByRole('listitem')[0]
    if (!current) throw new Error('no current session')
    fireEvent.click(within(current).getByRole('button', { name: 'Sign out' }))
    expect(within(current).getByText(/You will need to sign in again here/)).toBeTruthy()
    fireEvent.click(within(current).getByRole('button', { name: 'Yes, sign out' }))
    await waitFor(() =>
      expect(platform.navigations.some((n) => n.to === '/auth/sign-in')).toBe(true),
    )
    expect(refreshes()).toBe(1)
  })
})
