import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { createRef, useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Composer } from './composer.tsx'

afterEach(cleanup)

function renderComposer(props: { sending?: boolean; blocked?: string } = {}) {
  const onSend = vi.fn()
  const onStop = vi.fn()
  function Harness() {
    const [value, setValue] = useState('')
    return (
      <Composer
        value={value}
        onValue={setValue}
        onSend={onSend}
        onStop={onStop}
        sending={props.sending ?? false}
        blocked={props.blocked}
        textareaRef={createRef()}
      />
    )
  }
  render(<Harness />)
  const box = screen.getByRole('textbox', { name: 'Message to the assistant' })
  return { onSend, onStop, box }
}

describe('Composer', () => {
  it('sends with Enter and not while an input method is composing a character', () => {
    const { onSend, box } = renderComposer()
    fireEvent.change(box, { target: { value: 'こんにちは' } })
    fireEvent.keyDown(box, { key: 'Enter', isComposing: true })
    expect(onSend).not.toHaveBeenCalled()
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).toHaveBeenCalledWith('こんにちは')
  })

  it('sends nothing that is only whitespace', () => {
    const { onSend, box } = renderComposer()
    fireEvent.change(box, { target: { value: '  \n ' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true)
  })

  it('offers Stop instead of Send while answering, and Escape stops too', () => {
    const { onSend, onStop, box } = renderComposer({ sending: true })
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull()
    fireEvent.change(box, { target: { value: 'next question' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
    fireEvent.keyDown(box, { key: 'Escape' })
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }))
    expect(onStop).toHaveBeenCalledTimes(2)
    expect(screen.getByText(/Press Stop or Escape to stop/)).toBeTruthy()
  })

  it('shows why nothing can be sent, and keeps Send off', () => {
    const { onSend, box } = renderComposer({ blocked: 'The month’s tokens are used up.' })
    expect(screen.getByText('The month’s tokens are used up.')).toBeTruthy()
    fireEvent.change(box, { target: { value: 'hello' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
  })
})
