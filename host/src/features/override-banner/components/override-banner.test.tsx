import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError, type SnapshotRemote } from '@tessera/contracts'
import { OverrideBanner } from './override-banner.tsx'

const remote = (name: string, extra: Partial<SnapshotRemote> = {}): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath: `/${name}`,
  nav: null,
  slots: [],
  previous: null,
  ...extra,
})

const overridden = remote('billing', {
  version: '0.0.0-override',
  entryUrl: 'http://localhost:5174/assets/remoteEntry.js',
  override: { label: 'preview' },
})

describe('OverrideBanner', () => {
  afterEach(cleanup)

  it('shows nothing when no remote is overridden', () => {
    const { container } = render(
      <OverrideBanner remotes={[remote('billing')]} onStop={vi.fn()} reload={vi.fn()} />,
    )
    expect(container.innerHTML).toBe('')
  })

  it('says which remote is loaded from where, in a labelled region', () => {
    render(
      <OverrideBanner remotes={[overridden, remote('auth')]} onStop={vi.fn()} reload={vi.fn()} />,
    )
    const region = screen.getByRole('region', { name: 'Overrides in this browser' })
    expect(region.textContent).toContain(
      'billing is loaded from http://localhost:5174 — preview (this browser only)',
    )
    expect(region.textContent).not.toContain('auth')
    expect(screen.getByRole('button', { name: 'Stop override of billing' })).toBeTruthy()
  })

  it('stops the override and reloads the page with one click', async () => {
    const onStop = vi.fn(async () => undefined)
    const reload = vi.fn()
    render(<OverrideBanner remotes={[overridden]} onStop={onStop} reload={reload} />)
    fireEvent.click(screen.getByRole('button', { name: 'Stop override of billing' }))
    expect(onStop).toHaveBeenCalledWith('billing')
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
    const button = screen.getByRole('button', { name: 'Stopping…' }) as HTMLButtonElement
    expect(button.disabled).toBe(true)
  })

  it('keeps the page and says why when the server refuses, so the person can try again', async () => {
    const onStop = vi.fn(async () => {
      throw new ApiError('rate_limited', { message: 'Too many requests; wait a minute.' })
    })
    const reload = vi.fn()
    render(<OverrideBanner remotes={[overridden]} onStop={onStop} reload={reload} />)
    fireEvent.click(screen.getByRole('button', { name: 'Stop override of billing' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe(
      'The override of billing is still on: Too many requests; wait a minute. Try again.',
    )
    expect(reload).not.toHaveBeenCalled()
    const button = screen.getByRole('button', { name: 'Stop override of billing' })
    expect((button as HTMLButtonElement).disabled).toBe(false)
  })

  it('gives each overridden remote its own way out', () => {
    render(
      <OverrideBanner
        remotes={[
          overridden,
          remote('ai', { entryUrl: 'https://pr-3.preview.test/e.js', override: { label: 'PR 3' } }),
        ]}
        onStop={vi.fn()}
        reload={vi.fn()}
      />,
    )
    expect(screen.getAllByRole('listitem')).toHaveLength(2)
    expect(screen.getByRole('button', { name: 'Stop override of ai' })).toBeTruthy()
  })
})
