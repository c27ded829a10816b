// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { HeadingFocusContext, Progress, useHeadingFocus } from './page.tsx'

afterEach(cleanup)

function Page({ title }: { title: string }) {
  const headingRef = useHeadingFocus(title)
  return (
    <h1 ref={headingRef} tabIndex={-1}>
      {title}
    </h1>
  )
}

describe('useHeadingFocus', () => {
  it('leaves focus alone on the first page of a visit', () => {
    render(<Page title="Billing" />)
    expect(document.activeElement).toBe(document.body)
  })

  it('puts focus on the heading after a move between pages', () => {
    render(
      <HeadingFocusContext value={true}>
        <Page title="Plans" />
      </HeadingFocusContext>,
    )
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Plans' }))
  })

  it('puts focus back on the heading when the result it announces changes', () => {
    const view = render(<Page title="Confirming…" />)
    expect(document.activeElement).toBe(document.body)
    view.rerender(<Page title="You are on Pro" />)
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'You are on Pro' }))
  })
})

describe('Progress', () => {
  it('is a polite status line', () => {
    render(<Progress>Loading your plan…</Progress>)
    expect(screen.getByRole('status').textContent).toBe('Loading your plan…')
  })
})
