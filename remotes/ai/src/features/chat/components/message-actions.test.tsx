import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAssistantApi } from '../../../lib/assistant-api.ts'
import { message } from '../../../testing/fake-assistant-bff.ts'
import { chatErrorOf } from '../../../lib/chat-errors.ts'
import { planBranch, type MessageActions } from '../branch-actions.ts'
import { MessageEditor, MessageToolbar } from './message-actions.tsx'

function fakeActions() {
  return {
    edit: vi.fn<MessageActions['edit']>(),
    regenerate: vi.fn<MessageActions['regenerate']>(),
    showVersion: vi.fn<MessageActions['showVersion']>(() => Promise.resolve(null)),
  }
}

afterEach(cleanup)

describe('planBranch', () => {
  const api = createAssistantApi({} as Parameters<typeof createAssistantApi>[0])
  const q1 = message('user', 'one')
  const a1 = message('assistant', 'uno')
  const q2 = message('user', 'two')
  const a2 = message('assistant', 'dos')

  it('drops what follows an edited question and shows the new text in its place', () => {
    const plan = planBranch(api, 'c', [q1, a1, q2, a2], {
      kind: 'edit',
      messageId: q2.id,
      content: 'deux',
    })
    expect(plan?.messages.map((m) => m.content)).toEqual(['one', 'uno', 'deux'])
    expect(plan?.questionId).toBe(plan?.messages.at(-1)?.id)
  })

  it('keeps the question of a regenerated answer, whose stream names it again', () => {
    const plan = planBranch(api, 'c', [q1, a1, q2, a2], { kind: 'regenerate', messageId: a2.id })
    expect(plan?.messages).toEqual([q1, a1, q2])
    expect(plan?.questionId).toBe(q2.id)
    expect(plan?.content).toBe('two')
  })

  it('plans nothing for a message no longer shown', () => {
    expect(planBranch(api, 'c', [q1, a1], { kind: 'regenerate', messageId: 'gone' })).toBeNull()
  })
})

describe('MessageToolbar', () => {
  it('pages to the previous version and says which version is shown', async () => {
    const actions = fakeActions()
    const answer = message('assistant', 'dos')
    render(
      <MessageToolbar
        message={{ ...answer, versions: ['older', answer.id] }}
        actions={actions}
        last
      />,
    )
    expect(screen.getByRole('group', { name: 'Versions' }).textContent).toContain('Version 2 of 2')
    expect(screen.getByRole('button', { name: 'Next version' })).toHaveProperty('disabled', true)
    fireEvent.click(screen.getByRole('button', { name: 'Previous version' }))
    await waitFor(() => expect(actions.showVersion).toHaveBeenCalledWith('older'))
    fireEvent.click(screen.getByRole('button', { name: 'Regenerate' }))
    expect(actions.regenerate).toHaveBeenCalledWith(answer.id)
  })

  it('shows a refused page switch as its sentence', async () => {
    const actions = fakeActions()
    const refusal = chatErrorOf('answer_in_progress', 'Wait for the answer to finish.', null)
    actions.showVersion.mockResolvedValue(refusal)
    const answer = message('assistant', 'dos')
    render(
      <MessageToolbar
        message={{ ...answer, versions: ['older', answer.id] }}
        actions={actions}
        last
      />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Previous version' }))
    expect((await screen.findByRole('alert')).textContent).toBe(refusal.message)
  })

  it('offers no regenerate or pager without actions (streaming, or read-only), only Copy', () => {
    const answer = message('assistant', 'dos')
    render(
      <MessageToolbar
        message={{ ...answer, versions: ['older', answer.id] }}
        actions={undefined}
        last
      />,
    )
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull()
    expect(screen.queryByRole('group', { name: 'Versions' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy()
  })

  it('copies an answer, and says how to copy it when the clipboard is refused', async () => {
    const writeText = vi.fn(() => Promise.reject(new Error('denied')))
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    render(<MessageToolbar message={message('assistant', 'the answer')} actions={undefined} last />)
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }))
    expect(writeText).toHaveBeenCalledWith('the answer')
    await screen.findByRole('button', { name: 'Copy failed — select the text to copy it' })
  })
})

describe('MessageEditor', () => {
  it('saves the trimmed text, and Escape closes it without saving', () => {
    const onSave = vi.fn()
    const onClose = vi.fn()
    render(<MessageEditor initial="hello" onSave={onSave} onClose={onClose} />)
    const box = screen.getByRole('textbox', { name: 'Edit your message' })
    expect(document.activeElement).toBe(box)
    fireEvent.change(box, { target: { value: '  hi there ' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    expect(onSave).toHaveBeenCalledWith('hi there')
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(onClose).toHaveBeenCalledOnce()
    fireEvent.change(box, { target: { value: '   ' } })
    expect(screen.getByRole('button', { name: 'Save' })).toHaveProperty('disabled', true)
  })
})
