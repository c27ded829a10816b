import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { WorkspaceSummary } from '@tessera/contracts/workspaces'
import { ada, fakeBff, renderPage } from '../../../testing/render-page.tsx'
import { UserMenu } from './user-menu.tsx'

const reloads = vi.hoisted(() => ({ count: 0 }))
vi.mock('../../../lib/reload-page.ts', () => ({
  reloadPage: () => {
    reloads.count += 1
  },
}))

afterEach(() => {
  cleanup()
  reloads.count = 0
})

const personalId = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
const teamId = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'

const workspace = (
  id: string,
  name: string,
  kind: 'personal' | 'team',
  current: boolean,
): WorkspaceSummary => ({
  id,
  name,
  kind,
  role: 'owner',
  memberCount: kind === 'personal' ? 1 : 2,
  current,
  createdAt: '2026-11-01T10:00:00.000Z',
})

function switcherBff(currentId = personalId) {
  const state = { currentId, withTeam: true }
  const bff = fakeBff({
    'GET /api/workspaces': () =>
      Response.json({
        workspaces: [
          workspace(personalId, 'Ada Lovelace', 'personal', state.currentId === personalId),
          ...(state.withTeam
            ? [workspace(teamId, 'Analytical Engines', 'team', state.currentId === teamId)]
            : []),
        ],
        currentId: state.currentId,
      }),
    'POST /api/workspaces/current': (call) => {
      state.currentId = (call.body as { workspaceId: string }).workspaceId
      return Response.json({ workspace: workspace(teamId, 'Analytical Engines', 'team', true) })
    },
  })
  return { bff, state }
}

async function openMenu() {
  const button = await screen.findByRole('button', { name: /account menu/ })
  fireEvent.click(button)
  return screen.getByRole('menu')
}

describe('the workspace switcher in the user menu', () => {
  it('lists the workspaces, personal first, with the current one checked', async () => {
    const { bff } = switcherBff()
    renderPage(<UserMenu />, { path: '/assistant', session: ada, bff: bff })
    const menu = await openMenu()
    const group = await within(menu).findByRole('group', { name: 'Workspaces' })
    const choices = within(group).getAllByRole('menuitemradio')
    expect(choices.map((choice) => choice.textContent)).toEqual([
      'Ada Lovelace',
      'Analytical EnginesTeam',
    ])
    expect(choices.map((choice) => choice.getAttribute('aria-checked'))).toEqual(['true', 'false'])
    expect(within(menu).getByRole('menuitem', { name: 'Create a team…' })).toBeTruthy()
    expect(
      within(menu).getByRole('menuitem', { name: 'Manage workspaces' }).getAttribute('href'),
    ).toBe('/auth/workspaces')
    // The personal workspace goes without saying in the header.
    expect(screen.getByRole('button', { name: 'Ada Lovelace, account menu' })).toBeTruthy()
  })

  it('moves through the workspaces with the arrows and switches with Enter, then reloads', async () => {
    const { bff } = switcherBff()
    renderPage(<UserMenu />, { path: '/assistant', session: ada, bff: bff })
    const button = await screen.findByRole('button', { name: /account menu/ })
    // Once the list is in: the menu's first item is then the personal workspace.
    await screen.findByRole('menuitemradio', { name: /Analytical Engines/, hidden: true })
    fireEvent.keyDown(button, { key: 'Enter' })
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Ada Lovelace'))
    fireEvent.keyDown(document.activeElement ?? button, { key: 'ArrowDown' })
    expect(document.activeElement?.textContent).toBe('Analytical EnginesTeam')
    fireEvent.click(document.activeElement ?? button)
    await waitFor(() => expect(reloads.count).toBe(1))
    expect(bff.callsTo('POST /api/workspaces/current')[0]?.body).toEqual({ workspaceId: teamId })
    expect(document.activeElement).toBe(button)
  })

  it('names the current team in the header and follows a switch made in another tab', async () => {
    const { bff, state } = switcherBff()
    const { platform } = renderPage(<UserMenu />, { path: '/assistant', session: ada, bff: bff })
    await screen.findByRole('button', { name: 'Ada Lovelace, account menu' })
    state.currentId = teamId
    platform.emit({
      type: 'workspace.changed',
      data: { workspaceId: teamId, change: 'current', sessionId: 's1' },
    })
    await screen.findByRole('button', { name: 'Ada Lovelace, Analytical Engines, account menu' })
    expect(reloads.count).toBe(0)
  })

  it('says so when the user is removed from the current workspace', async () => {
    const { bff, state } = switcherBff(teamId)
    const { platform } = renderPage(<UserMenu />, { path: '/assistant', session: ada, bff: bff })
    await screen.findByRole('button', { name: 'Ada Lovelace, Analytical Engines, account menu' })
    state.withTeam = false
    state.currentId = personalId
    platform.emit({
      type: 'workspace.changed',
      data: { workspaceId: teamId, change: 'removed', sessionId: null },
    })
    await screen.findByRole('button', { name: 'Ada Lovelace, account menu' })
    expect(platform.notices.at(-1)).toEqual({
      kind: 'info',
      message:
        'You are no longer a member of Analytical Engines. You are working in Ada Lovelace now.',
    })
  })
})
