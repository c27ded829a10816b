// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SupportReference } from './support-reference.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

describe('SupportReference', () => {
  it('shows the request id as a reference and copies it, saying so', async () => {
    const writeText = vi.fn(() => Promise.resolve())
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard)
    render(<SupportReference requestId="c957ab12" className="failure__reference" />)
    const button = screen.getByRole('button', { name: 'Copy reference' })
    expect(button.textContent).toBe('Copy')
    expect(button.closest('p')?.className).toBe('support-reference failure__reference')
    expect(screen.getByText('c957ab12').tagName).toBe('CODE')
    await act(async () => {
      fireEvent.click(button)
      await Promise.resolve()
    })
    expect(writeText).toHaveBeenCalledWith('c957ab12')
    expect(screen.getByRole('status').textContent).toBe('Copied')
  })

  it('selects the reference when the clipboard refuses, so the keyboard can copy it', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const writeText = vi.fn(() => Promise.reject(new DOMException('denied', 'NotAllowedError')))
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard)
    render(<SupportReference requestId="req-9" />)
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy reference' }))
      await Promise.resolve()
    })
    expect(window.getSelection()?.toString()).toBe('req-9')
    expect(screen.getByRole('status').textContent).toMatch(/^Selected: press Ctrl\+C/)
  })
})
