import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { UpdateNoticeView } from './update-notice-view.tsx'

describe('UpdateNoticeView', () => {
  afterEach(cleanup)

  it('shows nothing while the page has what the registry serves', () => {
    const { container } = render(<UpdateNoticeView remotes={[]} reload={vi.fn()} />)
    expect(container.innerHTML).toBe('')
  })

  it('says which remotes were updated, as a polite status, and reloads on request', () => {
    const reload = vi.fn()
    render(<UpdateNoticeView remotes={['Billing', 'Assistant']} reload={reload} />)
    const region = screen.getByRole('complementary', { name: 'Updates' })
    expect(screen.getByRole('status').textContent).toBe(
      'Billing and Assistant have been updated since this page opened. Reload to use the new version; what you have open keeps working until then.',
    )
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }))
    expect(reload).toHaveBeenCalledTimes(1)
    const button = screen.getByRole('button', { name: 'Reloading…' }) as HTMLButtonElement
    expect(button.disabled).toBe(true)
    expect(region).toBeTruthy()
  })

  it('hides on "Later" until something else changes', () => {
    const { rerender } = render(<UpdateNoticeView remotes={['Billing']} reload={vi.fn()} />)
    expect(screen.getByRole('status').textContent).toContain('Billing has been updated')
    fireEvent.click(screen.getByRole('button', { name: 'Later' }))
    expect(screen.queryByRole('status')).toBeNull()
    rerender(<UpdateNoticeView remotes={['Billing']} reload={vi.fn()} />)
    expect(screen.queryByRole('status')).toBeNull()
    rerender(<UpdateNoticeView remotes={['Billing', 'Auth']} reload={vi.fn()} />)
    expect(screen.getByRole('status').textContent).toContain('Billing and Auth have been updated')
  })
})
