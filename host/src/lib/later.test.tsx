import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { later, LaterBoundary } from './later.tsx'

afterEach(cleanup)

function Part({ word }: { word: string }) {
  return <p>{word}</p>
}

/** A load the test finishes by hand. */
function pending() {
  let resolve: (component: typeof Part) => void = () => undefined
  let reject: (error: Error) => void = () => undefined
  const promise = new Promise<typeof Part>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('later', () => {
  it('shows the loading state until the part has arrived, then the part, fetched once', async () => {
    const load = pending()
    const loader = vi.fn(() => load.promise)
    const part = later(loader)
    part.prefetch()
    render(
      <LaterBoundary loading={<p role="status">Loading…</p>} failed={<p>Failed</p>}>
        <part.Component word="Terms" />
      </LaterBoundary>,
    )
    expect(screen.getByRole('status').textContent).toBe('Loading…')
    await act(async () => load.resolve(Part))
    expect(await screen.findByText('Terms')).toBeTruthy()
    expect(screen.queryByRole('status')).toBeNull()
    expect(loader).toHaveBeenCalledTimes(1)
  })

  it('shows what to do when the file cannot be fetched, and a later prefetch tries again', async () => {
    const load = pending()
    const loader = vi.fn(() => load.promise)
    const part = later(loader)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    render(
      <LaterBoundary loading={<p role="status">Loading…</p>} failed={<p>Check your connection</p>}>
        <part.Component word="Terms" />
      </LaterBoundary>,
    )
    await act(async () => load.reject(new Error('offline')))
    expect(await screen.findByText('Check your connection')).toBeTruthy()
    part.prefetch()
    expect(loader).toHaveBeenCalledTimes(2)
    logged.mockRestore()
  })
})
