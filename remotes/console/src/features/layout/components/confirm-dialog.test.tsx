// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cleanup, fireEvent, screen, within } from '@testing-library/react'
import { renderConsole } from '../../../testing/render-console.tsx'
import { ConfirmDialog } from './confirm-dialog.tsx'

afterEach(cleanup)

describe('ConfirmDialog', () => {
  it('is a labelled, described modal that keeps Tab inside it', () => {
    renderConsole(
      <ConfirmDialog
        title="Promote billing 1.3.0?"
        description="Every new page load gets it."
        change={{ label: 'Stable channel', before: '1.0.0', after: '1.3.0' }}
        confirmLabel="Promote"
        failureLead="Nothing was promoted."
        onConfirm={vi.fn(() => Promise.resolve())}
        onReload={vi.fn(() => Promise.resolve())}
        onClose={vi.fn()}
      />,
    )
    const dialog = screen.getByRole('dialog', { name: 'Promote billing 1.3.0?' })
    expect(dialog.getAttribute('aria-describedby')).toBe(
      screen.getByText('Every new page load gets it.').id,
    )
    const cancel = within(dialog).getByRole('button', { name: 'Cancel' })
    const confirm = within(dialog).getByRole('button', { name: 'Promote' })
    expect(document.activeElement).toBe(cancel)
    confirm.focus()
    fireEvent.keyDown(dialog, { key: 'Tab' })
    expect(document.activeElement).toBe(cancel)
    fireEvent.keyDown(dialog, { key: 'Tab', shiftKey: true })
    expect(document.activeElement).toBe(confirm)
  })
})
