import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { conversation, fakeAssistantBff, message } from '../../../testing/fake-assistant-bff.ts'
import { assistantPlatform, renderWithPlatform } from '../../../testing/render-assistant.tsx'
import AssistantPage from './assistant-page.tsx'

afterEach(cleanup)

const team = {
  used: 1200,
  reserved: 0,
  limit: 8000,
  member: { used: 1200, reserved: 0, cap: 8000 },
  pool: { used: 10_000, reserved: 0, limit: 100_000 },
  workspace: { id: 'w1', name: 'Orbit' },
}

function teamBff() {
  return fakeAssistantBff({
    usage: team,
    conversations: [
      { ...conversation('c2', 'Launch notes', 1), shared: true, sharedBy: 'Bob' },
      { ...conversation('c1', 'My draft', 5), shared: false },
    ],
    messages: {
      c1: [message('user', 'Hello')],
      c2: [message('user', 'Plan the launch'), message('assistant', 'Here is a plan.')],
    },
  })
}

describe('the assistant in a team workspace', () => {
  it('marks another member’s shared conversation read-only: no rename, delete or send', async () => {
    const bff = teamBff()
    renderWithPlatform(<AssistantPage />, {
      bff,
      platform: assistantPlatform(bff, '/conversations/c2'),
    })
    const list = await screen.findByRole('navigation', { name: 'Your conversations' })
    await waitFor(() => expect(within(list).getByText(/Shared by Bob · read-only/)).toBeTruthy())
    await screen.findByText('Here is a plan.')
    expect(screen.queryByRole('button', { name: 'Rename' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull()
    expect(screen.getByText(/Bob shared this conversation for reading/)).toBeTruthy()
  })

  it('offers the author a switch to share their conversation with the team', async () => {
    const bff = teamBff()
    renderWithPlatform(<AssistantPage />, {
      bff,
      platform: assistantPlatform(bff, '/conversations/c1'),
    })
    const toggle = await screen.findByRole('switch', { name: 'Shared with team' })
    fireEvent.click(toggle)
    await waitFor(() =>
      expect(bff.calls).toContainEqual(
        expect.objectContaining({
          method: 'PATCH',
          path: '/api/assistant/conversations/c1',
          body: { shared: true },
        }),
      ),
    )
    expect((await screen.findAllByText(/team pool left: 90.000/)).length).toBeGreaterThan(0)
  })
})
