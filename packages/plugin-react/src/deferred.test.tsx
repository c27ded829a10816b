// @vitest-environment happy-dom
import { act, Component } from 'react'
import type { ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { deferred } from './deferred.tsx'

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

class Boundary extends Component<{ children: ReactNode }, { error: string | null }> {
  override state = { error: null }
  static getDerivedStateFromError(error: Error) {
    return { error: error.message }
  }
  override render() {
    return this.state.error === null ? this.props.children : <p role="alert">{this.state.error}</p>
  }
}

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()))

function render(node: ReactNode): HTMLElement {
  const el = document.createElement('div')
  document.body.append(el)
  const root = createRoot(el)
  act(() => root.render(<Boundary>{node}</Boundary>))
  cleanups.push(() => {
    act(() => root.unmount())
    el.remove()
  })
  return el
}

function Greeting({ name }: { name: string }) {
  return <p>Hello {name}</p>
}

describe('deferred', () => {
  it('shows the fallback, then the component with its props once its code arrives', async () => {
    let arrive: (component: typeof Greeting) => void = () => {}
    const Deferred = deferred(() => new Promise<typeof Greeting>((resolve) => (arrive = resolve)))
    const el = render(<Deferred name="Ada" fallback={<span role="status">Loading…</span>} />)
    expect(el.textContent).toBe('Loading…')
    await act(async () => arrive(Greeting))
    expect(el.textContent).toBe('Hello Ada')
  })

  it('renders at once where the code already arrived, and asks for it once', async () => {
    const load = vi.fn(async () => Greeting)
    const Deferred = deferred(load)
    await Deferred.load()
    const el = render(<Deferred name="Grace" />)
    expect(el.textContent).toBe('Hello Grace')
    render(<Deferred name="Linus" />)
    expect(load).toHaveBeenCalledTimes(1)
  })

  it('hands a failed import to the error boundary; the next render asks again', async () => {
    const load = vi
      .fn<() => Promise<typeof Greeting>>()
      .mockRejectedValueOnce(new Error('the chunk did not load'))
      .mockResolvedValue(Greeting)
    const Deferred = deferred(load)
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const failed = render(<Deferred name="Ada" />)
      await vi.waitFor(() =>
        expect(failed.querySelector('[role="alert"]')?.textContent).toBe('the chunk did not load'),
      )
      const again = render(<Deferred name="Ada" />)
      await vi.waitFor(() => expect(again.textContent).toBe('Hello Ada'))
      expect(load).toHaveBeenCalledTimes(2)
    } finally {
      consoleError.mockRestore()
    }
  })
})
