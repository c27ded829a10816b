// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { apiError, fakeBff, renderConsole } from '../../../testing/render-console.tsx'
import { billingRemote, change, channel, detailBody } from '../../../testing/fixtures.ts'
import { VersionsPage } from './versions-page.tsx'

afterEach(cleanup)

const page = (answers: Parameters<typeof fakeBff>[0] = {}) => {
  const bff = fakeBff({
    'GET /api/console/remotes/billing': () => Response.json(detailBody()),
    ...answers,
  })
  const view = renderConsole(<VersionsPage name="billing" />, {
    bff,
    path: '/console/remotes/billing',
  })
  return { bff, ...view }
}

describe('VersionsPage', () => {
  it('lists every version with its descriptor, checks and status', async () => {
    page()
    const latest = await screen.findByRole('article', { name: '1.3.0' })
    expect(within(latest).getByText('Canary at 20 %')).toBeTruthy()
    expect(within(latest).getByText('react 19.3.1, react-dom 19.3.1')).toBeTruthy()
    expect(within(latest).getByText('Checks at publish: 2 of 2 passed')).toBeTruthy()
    expect(within(latest).getByText('142.3 KB in 2 files')).toBeTruthy()
    expect(within(latest).getByRole('region', { name: 'Files of billing 1.3.0' })).toBeTruthy()
    const stable = screen.getByRole('article', { name: '1.0.0' })
    expect(within(stable).getByText('Stable')).toBeTruthy()
    expect(within(stable).queryByRole('button', { name: /Promote/ })).toBeNull()
  })

  it('promotes after a labelled modal confirmation that shows before → after, with the revision it read', async () => {
    const { bff, platform } = page({
      'POST /api/console/remotes/billing/promote': Response.json(
        change('stable', channel('stable', '1.0.0'), channel('stable', '1.3.0')),
      ),
    })
    fireEvent.click(await screen.findByRole('button', { name: 'Promote 1.3.0' }))
    const dialog = screen.getByRole('dialog', { name: 'Promote billing 1.3.0?' })
    expect((dialog as HTMLDialogElement).open).toBe(true)
    const changeGroup = within(dialog).getByRole('group', { name: 'Stable channel' })
    expect(changeGroup.textContent).toBe('Before1.0.0→After1.3.0')
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }))
    fireEvent.click(within(dialog).getByRole('button', { name: 'Promote' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.callsTo('POST /api/console/remotes/billing/promote')[0]?.body).toEqual({
      version: '1.3.0',
      expectedRevision: 4,
    })
    expect(platform.notices).toEqual([
      { kind: 'success', message: 'billing: stable 1.0.0 → 1.3.0.' },
    ])
  })

  it('starts a canary at the share typed, refusing a share out of range', async () => {
    const { bff } = page({
      'POST /api/console/remotes/billing/canary': Response.json(
        change('canary', channel('canary', null), channel('canary', '0.9.0', { percentage: 20 })),
      ),
    })
    fireEvent.click(await screen.findByRole('button', { name: 'Start canary of 0.9.0' }))
    const dialog = screen.getByRole('dialog', { name: 'Start a canary of billing 0.9.0?' })
    const share = within(dialog).getByLabelText('Share of users (%)')
    fireEvent.change(share, { target: { value: '120' } })
    expect(within(dialog).getByText('Enter a whole percentage from 1 to 100.')).toBeTruthy()
    expect(
      within(dialog).getByRole('button', { name: 'Start canary' }).hasAttribute('disabled'),
    ).toBe(true)
    fireEvent.change(share, { target: { value: '20' } })
    expect(within(dialog).getByRole('group', { name: 'Canary channel' }).textContent).toBe(
      'Before1.3.0 at 20 %→After0.9.0 at 20 %',
    )
    fireEvent.click(within(dialog).getByRole('button', { name: 'Start canary' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.callsTo('POST /api/console/remotes/billing/canary')[0]?.body).toEqual({
      version: '0.9.0',
      percentage: 20,
      expectedRevision: 7,
    })
  })

  it('stops the canary and rolls back with the channel’s own revision', async () => {
    const { bff } = page({
      'POST /api/console/remotes/billing/canary/stop': Response.json(
        change('canary', channel('canary', '1.3.0'), channel('canary', null)),
      ),
      'POST /api/console/remotes/billing/rollback': Response.json(
        change('stable', channel('stable', '1.0.0'), channel('stable', '0.9.0')),
      ),
    })
    fireEvent.click(await screen.findByRole('button', { name: 'Stop canary' }))
    let dialog = screen.getByRole('dialog', { name: 'Stop billing’s canary?'.replace('’', "'") })
    expect(within(dialog).getByRole('group').textContent).toBe('Before1.3.0 at 20 %→Afternothing')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stop canary' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    fireEvent.click(screen.getByRole('button', { name: 'Roll back to 0.9.0' }))
    dialog = screen.getByRole('dialog', { name: 'Roll billing back to 0.9.0?' })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Roll back' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.callsTo('POST /api/console/remotes/billing/canary/stop')[0]?.body).toEqual({
      expectedRevision: 7,
    })
    expect(bff.callsTo('POST /api/console/remotes/billing/rollback')[0]?.body).toEqual({
      expectedRevision: 4,
    })
  })

  it('closes the dialog on Escape without sending anything', async () => {
    const { bff } = page()
    fireEvent.click(await screen.findByRole('button', { name: 'Roll back to 0.9.0' }))
    const dialog = screen.getByRole('dialog', { name: 'Roll billing back to 0.9.0?' })
    fireEvent(dialog, new Event('cancel', { cancelable: true }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.calls.filter((call) => call.method === 'POST')).toEqual([])
  })

  it('shows who changed the channel when the move conflicts, applies nothing, and reloads', async () => {
    let moved = false
    const { platform } = page({
      'GET /api/console/remotes/billing': () => {
        return Response.json(
          !moved
            ? detailBody()
            : detailBody(billingRemote({ stable: channel('stable', '1.3.0', { revision: 5 }) })),
        )
      },
      'POST /api/console/remotes/billing/promote': apiError('conflict', {
        remote: 'billing',
        channel: 'stable',
        expectedRevision: 4,
        revision: 5,
        changedBy: 'grace@example.com',
        changedAt: '2026-11-26T09:05:00.000Z',
      }),
    })
    fireEvent.click(await screen.findByRole('button', { name: 'Promote 1.3.0' }))
    const dialog = screen.getByRole('dialog')
    // Someone else promotes while the dialog is open; the page read revision 4.
    moved = true
    fireEvent.click(within(dialog).getByRole('button', { name: 'Promote' }))
    const alert = await within(dialog).findByRole('alert')
    expect(alert.textContent).toMatch(
      /Nothing was promoted\. Changed by grace@example\.com at .+; reload to see it\./,
    )
    expect(within(dialog).queryByRole('button', { name: 'Promote' })).toBeNull()
    expect(platform.notices).toEqual([])
    fireEvent.click(within(alert).getByRole('button', { name: 'Reload' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() =>
      expect(
        within(screen.getByRole('article', { name: '1.3.0' })).getByText('Stable'),
      ).toBeTruthy(),
    )
  })

  it('says when the remote does not exist', async () => {
    page({ 'GET /api/console/remotes/billing': apiError('not_found') })
    expect(await screen.findByRole('heading', { level: 1, name: 'Remote not found' })).toBeTruthy()
    expect(screen.getByText('No remote named billing is registered.')).toBeTruthy()
  })
})
