import { afterEach, describe, expect, it } from 'vitest'
import { interceptPluginLinks, isPlainLeftClick } from './links.ts'
import type { Router } from './router.ts'

function fakeRouter() {
  const visited: string[] = []
  const router = { navigate: (to: string) => visited.push(to) } as unknown as Router
  return { router, visited }
}

/** Clicks, and reports whether the interceptor took the click; the test window never navigates. */
function click(element: Element, init: MouseEventInit = {}): { taken: boolean } {
  const result = { taken: false }
  const after = (event: Event) => {
    result.taken = event.defaultPrevented
    // Keep happy-dom from following the link for real (it would fetch the URL).
    event.preventDefault()
  }
  window.addEventListener('click', after)
  element.dispatchEvent(
    new MouseEvent('click', { bubbles: true, cancelable: true, button: 0, ...init }),
  )
  window.removeEventListener('click', after)
  return result
}

describe('interceptPluginLinks', () => {
  afterEach(() => {
    document.body.replaceChildren()
  })

  function plugin(html: string): HTMLElement {
    const el = document.createElement('div')
    el.setAttribute('data-tessera-remote', 'billing')
    el.innerHTML = html
    document.body.append(el)
    return el
  }

  it('turns a plain click on a plugin’s same-origin link into an in-app navigation', () => {
    const { router, visited } = fakeRouter()
    const stop = interceptPluginLinks(document, router)
    const el = plugin('<a href="/billing/plans?x=1"><span>Plans</span></a>')
    expect(click(el.querySelector('span') as Element).taken).toBe(true)
    expect(visited).toEqual(['/billing/plans?x=1'])
    stop()
  })

  it('leaves modified clicks, other origins, API links, new tabs and handled clicks to the browser', () => {
    const { router, visited } = fakeRouter()
    const stop = interceptPluginLinks(document, router)
    const el = plugin(`
      <a id="a" href="/billing/plans">a</a>
      <a id="b" href="https://stripe.test/checkout">b</a>
      <a id="c" href="/api/billing/invoice.pdf">c</a>
      <a id="d" href="/billing" target="_blank">d</a>
      <a id="e" href="/billing/handled">e</a>`)
    expect(click(el.querySelector('#a') as Element, { metaKey: true }).taken).toBe(false)
    expect(click(el.querySelector('#b') as Element).taken).toBe(false)
    expect(click(el.querySelector('#c') as Element).taken).toBe(false)
    expect(click(el.querySelector('#d') as Element).taken).toBe(false)
    const handled = el.querySelector('#e') as Element
    handled.addEventListener('click', (event) => event.preventDefault())
    click(handled)
    expect(visited).toEqual([])
    stop()
  })

  it('ignores links outside plugins', () => {
    const { router, visited } = fakeRouter()
    const stop = interceptPluginLinks(document, router)
    const a = document.createElement('a')
    a.href = '/billing'
    document.body.append(a)
    expect(click(a).taken).toBe(false)
    expect(visited).toEqual([])
    stop()
  })
})

describe('isPlainLeftClick', () => {
  it('is false for a middle click or a modifier', () => {
    const base = { button: 0, metaKey: false, ctrlKey: false, shiftKey: false, altKey: false }
    expect(isPlainLeftClick(base)).toBe(true)
    expect(isPlainLeftClick({ ...base, button: 1 })).toBe(false)
    expect(isPlainLeftClick({ ...base, ctrlKey: true })).toBe(false)
  })
})
