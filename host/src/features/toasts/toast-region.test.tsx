import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createNoticeStore } from '../../lib/platform/notices.ts'
import { ToastRegion } from './toast-region.tsx'

describe('ToastRegion', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    cleanup()
    vi.useRealTimers()
  })

  it('shows a notice in a polite live region and dismisses it on its own', () => {
    const notices = createNoticeStore({ durationMs: 3000 })
    render(<ToastRegion notices={notices} />)
    act(() => {
      notices.notify({ kind: 'success', message: 'Profile saved' })
    })
    const region = screen.getByRole('region', { name: 'Notifications' })
    expect(region.querySelector('[aria-live="polite"]')).not.toBeNull()
    expect(screen.getByText('Profile saved')).toBeTruthy()
    act(() => {
      vi.advanceTimersByTime(3000)
    })
    expect(screen.queryByText('Profile saved')).toBeNull()
  })

  it('shows an error as an alert with its code, and the dismiss button removes it', () => {
    const notices = createNoticeStore()
    render(<ToastRegion notices={notices} />)
    act(() => {
      notices.notify({
        kind: 'error',
        message: 'You have used your allowance.',
        code: 'quota_exceeded',
      })
    })
    const alert = screen.getByRole('alert')
    expect(alert.textContent).toContain('You have used your allowance.')
    expect(alert.querySelector('code')?.textContent).toBe('quota_exceeded')
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notification' }))
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('keeps a toast while the pointer is over it', () => {
    const notices = createNoticeStore({ durationMs: 1000 })
    render(<ToastRegion notices={notices} />)
    act(() => {
      notices.notify({ kind: 'info', message: 'Reading this' })
    })
    fireEvent.mouseEnter(screen.getByText('Reading this').closest('li') as HTMLElement)
    act(() => {
      vi.advanceTimersByTime(5000)
    })
    expect(screen.getByText('Reading this')).toBeTruthy()
  })
})
