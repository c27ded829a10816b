import { act, cleanup, render } from '@testing-library/react'
import { useRef } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { useFollowScroll } from './use-follow-scroll.ts'

afterEach(cleanup)

/** A scroller with the layout happy-dom lacks: 100 px tall, content `height` px. */
function fakeLayout(el: HTMLElement, height: { value: number }) {
  let top = 0
  Object.defineProperty(el, 'clientHeight', { configurable: true, get: () => 100 })
  Object.defineProperty(el, 'scrollHeight', { configurable: true, get: () => height.value })
  Object.defineProperty(el, 'scrollTop', {
    configurable: true,
    get: () => top,
    set: (value: number) => {
      top = Math.max(0, Math.min(value, height.value - 100))
    },
  })
  el.scrollTo = ((options: ScrollToOptions) => {
    el.scrollTop = options.top ?? 0
  }) as typeof el.scrollTo
}

const content = { value: 100 }
let api: ReturnType<typeof useFollowScroll> | null = null
let scroller: HTMLDivElement | null = null

function Thread({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null)
  api = useFollowScroll(ref, text)
  return (
    <div
      ref={(el) => {
        ref.current = el
        scroller = el
        if (el && !('faked' in el.dataset)) {
          el.dataset.faked = ''
          fakeLayout(el, content)
        }
      }}
    >
      {text}
    </div>
  )
}

function scrollTo(top: number) {
  if (scroller === null) throw new Error('not rendered')
  scroller.scrollTop = top
  act(() => {
    scroller?.dispatchEvent(new Event('scroll'))
  })
}

describe('useFollowScroll', () => {
  it('follows growing content to its end', () => {
    content.value = 100
    const view = render(<Thread text="a" />)
    content.value = 500
    view.rerender(<Thread text="ab" />)
    expect(scroller?.scrollTop).toBe(400)
    content.value = 900
    view.rerender(<Thread text="abc" />)
    expect(scroller?.scrollTop).toBe(800)
    expect(api?.following).toBe(true)
  })

  it('stays where the reader scrolled up to, and Jump to latest brings them back', () => {
    content.value = 500
    const view = render(<Thread text="a" />)
    content.value = 600
    view.rerender(<Thread text="ab" />)
    expect(scroller?.scrollTop).toBe(500)
    scrollTo(200)
    expect(api?.following).toBe(false)
    content.value = 900
    view.rerender(<Thread text="abc" />)
    expect(scroller?.scrollTop).toBe(200)

    act(() => api?.toLatest())
    expect(scroller?.scrollTop).toBe(800)
    expect(api?.following).toBe(true)
    content.value = 1000
    view.rerender(<Thread text="abcd" />)
    expect(scroller?.scrollTop).toBe(900)
  })

  it('follows again when the reader scrolls back down to the end themselves', () => {
    content.value = 600
    const view = render(<Thread text="a" />)
    scrollTo(100)
    expect(api?.following).toBe(false)
    scrollTo(470)
    expect(api?.following).toBe(true)
    content.value = 700
    view.rerender(<Thread text="ab" />)
    expect(scroller?.scrollTop).toBe(600)
  })
})
